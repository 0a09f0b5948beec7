package ghfake

import "strings"

// ParseOutputs reads a GITHUB_OUTPUT file as the runner does: the heredoc form (name<<DELIM,
// value lines, DELIM) the action writes, for callers that run the action in-process (the demo,
// tests) and read its step outputs back.
func ParseOutputs(data []byte) map[string]string {
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}
