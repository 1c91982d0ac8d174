package main

import (
	"errors"
	"strconv"
	"strings"
)

// byteSize is a flag holding a number of bytes, written plainly (4194304)
// or with a binary unit (64KiB, 4MiB, 1GiB; K, M, G alike); checkRunFlags
// rejects values below 1.
type byteSize struct{ n *int }

func (b byteSize) String() string {
	if b.n == nil {
		return ""
	}
	return strconv.Itoa(*b.n)
}

func (b byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b.n = n
	return nil
}

// parseByteSize reads a byte count with an optional binary unit.
func parseByteSize(s string) (int, error) {
	num, mult := strings.TrimSpace(s), 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, errors.New("not a byte count (use e.g. 4194304, 64KiB, 16MiB)")
	}
	if n > (1<<40)/int64(mult) || n < -(1<<40)/int64(mult) {
		return 0, errors.New("more than 1 TiB")
	}
	return int(n) * mult, nil
}
