package httpauth

import (
	"encoding/asn1"
	"errors"
	"math/big"
)

// A JWS ES256 signature is r and s as two 32-byte big-endian numbers;
// crypto/ecdsa speaks ASN.1 DER.
type ecdsaSig struct{ R, S *big.Int }

func asn1ToRaw(der []byte) ([]byte, error) {
	var s ecdsaSig
	if _, err := asn1.Unmarshal(der, &s); err != nil {
		return nil, err
	}
	if s.R.BitLen() > 256 || s.S.BitLen() > 256 {
		return nil, errors.New("httpauth: signature too long")
	}
	out := make([]byte, 64)
	s.R.FillBytes(out[:32])
	s.S.FillBytes(out[32:])
	return out, nil
}

func rawToASN1(raw []byte) []byte {
	der, _ := asn1.Marshal(ecdsaSig{new(big.Int).SetBytes(raw[:32]), new(big.Int).SetBytes(raw[32:])})
	return der
}
