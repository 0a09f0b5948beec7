package lessons

import (
	"slices"
	"testing"
)

func TestTrailerTicketLines(t *testing.T) {
	line := FreeTicket{Tick: 3, Decider: "053a99cf0a4c", Query: "how do I run the integration tests"}.Line()
	val := line[len("darwin-memo: "):]
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"trailer", "Fix flaky itest\n\nBody text.\n\nDarwin-Memo: " + val + "\nSigned-off-by: A <a@b>\n", []string{line}},
		{"any case, CRLF", "Fix\r\n\r\ndarwin-memo: " + val + "\r\n", []string{line}},
		{"folded by a tool", "Fix\n\nDarwin-Memo: v1 t=3 d=053a99cf0a4c\n  s=- q=" + val[len("v1 t=3 d=053a99cf0a4c s=- q="):] + "\n", []string{line}},
		{"two trailers", "Fix\n\nDarwin-Memo: " + val + "\nDarwin-Memo: " + val + "\n", []string{line, line}},
		{"mentioned, not a trailer", "Fix\n\nWe use Darwin-Memo tickets; see docs.\n  Darwin-Memo: " + val + "\n", nil},
		{"other trailer", "Fix\n\nLesson: run tests with -p 1\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := TrailerTicketLines(c.msg)
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			for _, l := range got {
				ts, errs := ParseTickets(l)
				if len(errs) > 0 || len(ts) != 1 || ts[0].Free.Decider != "053a99cf0a4c" {
					t.Fatalf("ParseTickets(%q) = %v %v", l, ts, errs)
				}
			}
		})
	}
}

func FuzzTrailerTicketLines(f *testing.F) {
	f.Add("Fix\n\nDarwin-Memo: v1 t=0 d=053a99cf0a4c s=- q=aGk\n")
	f.Add("Darwin-Memo:\n \n\tx")
	f.Fuzz(func(t *testing.T, msg string) {
		for _, l := range TrailerTicketLines(msg) {
			ParseTickets(l) // never panics; malformed tickets are errors
		}
	})
}
