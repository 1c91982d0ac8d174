package demo

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/reference"
)

// The demo estate's resources, resource templates and prompts. Every item
// carries an entitlement, so that a principal sees resources and prompts by
// the same rules as tools; an item the principal may not see is, to it,
// exactly an item that does not exist.

// Document is a resource the estate can read: text or blob contents.
type Document struct {
	URI, Name, Title, Description, MimeType string
	Text                                    string // text contents, when Blob is nil
	Blob                                    []byte // binary contents
	// Audience, Priority and LastModified are the annotations; Priority 0
	// with an empty Audience means none.
	Audience     []string
	Priority     float64
	LastModified string
	// Live documents change on every tick: the FX feed. Subscribers hear
	// notifications/resources/updated for them.
	Live        bool
	Entitlement reference.Entitlement
}

// Template is a resource template: a family of documents behind an RFC 6570
// level-1 URI template.
type Template struct {
	URITemplate, Name, Title, Description, MimeType string
	Entitlement                                     reference.Entitlement
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name, Title, Description string
	Required                 bool
}

// Prompt is a prompt template of the estate.
type Prompt struct {
	Name, Title, Description string
	Args                     []PromptArg
	Entitlement              reference.Entitlement
}

// The URIs of the estate's fixed documents.
const (
	PolicyURI = "bank://policies/acceptable-use"
	LogoURI   = "bank://brand/logo.png"
	LiveFXURI = "bank://fx/rates/live"
)

// StatementTemplate is the template of account statements.
const StatementTemplate = "bank://accounts/{id}/statements/{month}"

// account is one bank account: its owner tenant and classification decide
// who sees its statements.
type account struct {
	id, owner, tenant string
	class             reference.Classification
}

var accounts = []account{
	{id: "ACC-1001", owner: "Ada Lovelace", tenant: "acme", class: reference.ClassificationInternal},
	{id: "ACC-1002", owner: "Acme Treasury", tenant: "acme", class: reference.ClassificationConfidential},
	{id: "ACC-2001", owner: "Globex Payroll", tenant: "globex", class: reference.ClassificationInternal},
}

func (a account) entitlement() reference.Entitlement {
	return reference.Entitlement{Tenants: []string{a.tenant}, RequiredScopes: []string{"accounts.read"}, Classification: a.class}
}

// Months lists the statement months every account has, oldest first: from
// 2015-01 to 2026-03, 135 of them, more than one completion result may
// carry.
func Months() []string {
	var out []string
	for y := 2015; y <= 2026; y++ {
		for m := 1; m <= 12; m++ {
			if y == 2026 && m > 3 {
				break
			}
			out = append(out, fmt.Sprintf("%04d-%02d", y, m))
		}
	}
	return out
}

// listedMonths is how many of the newest statements resources/list names
// per account; the template reaches every month.
const listedMonths = 3

// Currencies are the quote currencies of the FX templates, sorted.
var Currencies = []string{"CHF", "GBP", "JPY", "SEK", "USD"}

var logoPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

var public = reference.Entitlement{Classification: reference.ClassificationPublic}

func fixedDocuments() []Document {
	return []Document{
		{
			URI: PolicyURI, Name: "acceptable-use.md", Title: "Acceptable use policy",
			Description: "How the estate's tools and data may be used.",
			MimeType:    "text/markdown",
			Text:        "# Acceptable use\n\nEstate data is for servicing the account holder. Do not export statements outside the tenant. Transfers need the holder's instruction.\n",
			Audience:    []string{"user", "assistant"}, Priority: 0.9, LastModified: "2026-01-15T09:00:00Z",
			Entitlement: public,
		},
		{
			URI: LogoURI, Name: "logo.png", Title: "Bank logo",
			Description: "The brand mark, a 1x1 PNG.",
			MimeType:    "image/png", Blob: logoPNG,
			Audience: []string{"user"}, Priority: 0.2, LastModified: "2025-11-01T00:00:00Z",
			Entitlement: public,
		},
		{
			URI: LiveFXURI, Name: "live-rates.json", Title: "Live FX rates",
			Description: "EUR rates that move on every request the server handles; subscribe to hear of each change.",
			MimeType:    "application/json", Live: true,
			Entitlement: reference.Entitlement{RequiredScopes: []string{"fx.read"}, Classification: reference.ClassificationPublic},
		},
	}
}

// Templates returns the estate's resource templates, sorted by template.
func Templates() []Template {
	t := []Template{
		{URITemplate: StatementTemplate, Name: "statement", Title: "Monthly account statement",
			Description: "The CSV statement of one account for one month (YYYY-MM).", MimeType: "text/csv",
			Entitlement: reference.Entitlement{RequiredScopes: []string{"accounts.read"}, Classification: reference.ClassificationInternal}},
		{URITemplate: "bank://accounts/{id}/summary", Name: "account-summary", Title: "Account summary",
			Description: "Owner and statement range of one account.", MimeType: "application/json",
			Entitlement: reference.Entitlement{RequiredScopes: []string{"accounts.read"}, Classification: reference.ClassificationInternal}},
		{URITemplate: "bank://fx/rates/{currency}", Name: "fx-rate", Title: "EUR rate of a currency",
			Description: "The reference rate of one currency against EUR.", MimeType: "application/json",
			Entitlement: reference.Entitlement{RequiredScopes: []string{"fx.read"}, Classification: reference.ClassificationPublic}},
	}
	sort.Slice(t, func(i, j int) bool { return t[i].URITemplate < t[j].URITemplate })
	return t
}

// Documents returns every document resources/list names (to a principal
// entitled to all), sorted by URI. Statements older than the newest three
// months are reachable through StatementTemplate only.
func Documents() []Document {
	docs := fixedDocuments()
	months := Months()
	for _, a := range accounts {
		for _, m := range months[len(months)-listedMonths:] {
			docs = append(docs, statement(a, m))
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].URI < docs[j].URI })
	return docs
}

func statement(a account, month string) Document {
	return Document{
		URI: fmt.Sprintf("bank://accounts/%s/statements/%s", a.id, month), Name: fmt.Sprintf("%s-%s.csv", a.id, month),
		Title: fmt.Sprintf("Statement %s %s", a.id, month), Description: "Monthly statement of " + a.owner,
		MimeType: "text/csv", Text: statementCSV(a, month), Entitlement: a.entitlement(),
	}
}

// statementCSV is a deterministic, plausible statement.
func statementCSV(a account, month string) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%s", a.id, month)
	n := h.Sum32()
	var b strings.Builder
	b.WriteString("date,description,amount,currency\n")
	fmt.Fprintf(&b, "%s-01,Opening balance,%d.%02d,EUR\n", month, 1000+n%9000, n%100)
	fmt.Fprintf(&b, "%s-09,Card payment,-%d.%02d,EUR\n", month, 10+n%90, (n/7)%100)
	fmt.Fprintf(&b, "%s-25,Salary,%d.00,EUR\n", month, 2000+(n/13)%3000)
	return b.String()
}

// Read resolves uri for principal p at the given tick of the live feed. A
// URI that does not exist and one p may not see give the same false.
func Read(p reference.Principal, uri string, tick int) (Document, bool) {
	for _, d := range fixedDocuments() {
		if d.URI == uri {
			if !allowed(d.Entitlement, p) {
				return Document{}, false
			}
			if d.Live {
				d.Text = liveRates(tick)
			}
			return d, true
		}
	}
	if rest, ok := strings.CutPrefix(uri, "bank://accounts/"); ok {
		id, tail, _ := strings.Cut(rest, "/")
		a, ok := findAccount(id)
		if !ok || !allowed(a.entitlement(), p) {
			return Document{}, false
		}
		if tail == "summary" {
			months := Months()
			text, _ := json.Marshal(map[string]any{"account": a.id, "owner": a.owner, "firstStatement": months[0], "lastStatement": months[len(months)-1]})
			return Document{URI: uri, Name: a.id + "-summary.json", MimeType: "application/json", Text: string(text), Entitlement: a.entitlement()}, true
		}
		if month, ok := strings.CutPrefix(tail, "statements/"); ok && contains(Months(), month) {
			return statement(a, month), true
		}
		return Document{}, false
	}
	if cur, ok := strings.CutPrefix(uri, "bank://fx/rates/"); ok && contains(Currencies, cur) {
		e := reference.Entitlement{RequiredScopes: []string{"fx.read"}, Classification: reference.ClassificationPublic}
		if !allowed(e, p) {
			return Document{}, false
		}
		text, _ := json.Marshal(map[string]any{"base": "EUR", "quote": cur, "rate": rate(cur, 0)})
		return Document{URI: uri, Name: "EUR" + cur + ".json", MimeType: "application/json", Text: string(text), Entitlement: e}, true
	}
	return Document{}, false
}

// Listed returns the documents resources/list names for p, sorted by URI.
func Listed(p reference.Principal) []Document {
	var out []Document
	for _, d := range Documents() {
		if allowed(d.Entitlement, p) {
			out = append(out, d)
		}
	}
	return out
}

// VisibleTemplates returns the templates p may see, sorted.
func VisibleTemplates(p reference.Principal) []Template {
	var out []Template
	for _, t := range Templates() {
		if allowed(t.Entitlement, p) {
			out = append(out, t)
		}
	}
	return out
}

// Prompts returns the estate's prompts, sorted by name.
func Prompts() []Prompt {
	accountsRead := reference.Entitlement{RequiredScopes: []string{"accounts.read"}, Classification: reference.ClassificationInternal}
	return []Prompt{
		{Name: "explain-policy", Title: "Explain the acceptable use policy",
			Description: "Walks through the policy document, embedded as a resource.", Entitlement: public},
		{Name: "review-brand", Title: "Review the brand mark",
			Description: "Asks for a review of the logo, sent as an image.",
			Args:        []PromptArg{{Name: "channel", Title: "Channel", Description: "Where the logo will appear: email, print or web."}},
			Entitlement: public},
		{Name: "summarize-statement", Title: "Summarize a statement",
			Description: "Summarizes one monthly statement, embedded as a resource.",
			Args: []PromptArg{
				{Name: "account", Title: "Account", Description: "The account id, e.g. ACC-1001.", Required: true},
				{Name: "month", Title: "Month", Description: "The statement month, YYYY-MM.", Required: true},
				{Name: "style", Title: "Style", Description: "brief (default) or detailed."},
			},
			Entitlement: accountsRead},
		{Name: "triage-fraud", Title: "Triage a fraud case",
			Description: "Restricted to the fraud team.",
			Args:        []PromptArg{{Name: "case", Title: "Case", Description: "The case id.", Required: true}},
			Entitlement: reference.Entitlement{RequiredScopes: []string{"fraud.read"}, Classification: reference.ClassificationRestricted}},
	}
}

// VisiblePrompts returns the prompts p may see, sorted by name.
func VisiblePrompts(p reference.Principal) []Prompt {
	var out []Prompt
	for _, pr := range Prompts() {
		if allowed(pr.Entitlement, p) {
			out = append(out, pr)
		}
	}
	return out
}

// FindPrompt returns the prompt named name if p may see it.
func FindPrompt(p reference.Principal, name string) (Prompt, bool) {
	for _, pr := range VisiblePrompts(p) {
		if pr.Name == name {
			return pr, true
		}
	}
	return Prompt{}, false
}

// VisibleAccounts returns the ids of the accounts p may see, sorted.
func VisibleAccounts(p reference.Principal) []string {
	var out []string
	for _, a := range accounts {
		if allowed(a.entitlement(), p) {
			out = append(out, a.id)
		}
	}
	return out
}

// Channels are the values of review-brand's channel argument.
var Channels = []string{"email", "print", "web"}

// Styles are the values of summarize-statement's style argument.
var Styles = []string{"brief", "detailed"}

func findAccount(id string) (account, bool) {
	for _, a := range accounts {
		if a.id == id {
			return a, true
		}
	}
	return account{}, false
}

// allowed is Entitlement.Allows where an error (an unknown clearance) hides
// the item: a misconfigured principal sees less, never more.
func allowed(e reference.Entitlement, p reference.Principal) bool {
	ok, err := e.Allows(p)
	return err == nil && ok
}

func liveRates(tick int) string {
	rates := map[string]float64{}
	for _, c := range Currencies {
		rates[c] = rate(c, tick)
	}
	b, _ := json.Marshal(map[string]any{"base": "EUR", "tick": tick, "rates": rates})
	return string(b)
}

// rate is a deterministic rate that moves a little with tick.
func rate(cur string, tick int) float64 {
	base := map[string]float64{"CHF": 0.94, "GBP": 0.85, "JPY": 162.5, "SEK": 11.4, "USD": 1.08}[cur]
	return base * (1 + float64(tick%7)/1000)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// AccountIDs returns the id of every account of the estate, visible or
// not, sorted: the universe the entitlement properties draw from.
func AccountIDs() []string {
	out := make([]string, len(accounts))
	for i, a := range accounts {
		out[i] = a.id
	}
	return out
}
