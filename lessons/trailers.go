package lessons

import "strings"

// TrailerKey is the git trailer that carries a store-free ticket in a commit
// message: "Darwin-Memo: v1 t=... d=... s=... q=...".
const TrailerKey = "Darwin-Memo"

// TrailerTicketLines returns the ticket lines a commit message carries as
// TrailerKey trailers (the key matched case-insensitively, as git does), each
// rewritten as the body form "darwin-memo: v1 ..." that ParseTickets reads. A
// trailer folded onto continuation lines (leading white space, git's folding)
// is joined back, so a wrapped ticket still parses.
func TrailerTicketLines(msg string) []string {
	var out []string
	lines := strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		key, val, ok := strings.Cut(lines[i], ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), TrailerKey) || strings.TrimSpace(key) != key {
			continue
		}
		val = strings.TrimSpace(val)
		for i+1 < len(lines) && lines[i+1] != "" && (lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
			i++
			val += " " + strings.TrimSpace(lines[i])
		}
		if val != "" {
			out = append(out, "darwin-memo: "+val)
		}
	}
	return out
}
