package encode

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// Length limits of a lesson, in characters.
const (
	minQuestion = 10
	maxQuestion = 200
	minAnswer   = 10
	maxAnswer   = 600
	maxEvidence = 8
)

// Grounding thresholds: at least minGroundedShare of a lesson's content
// tokens, and at least minGroundedTokens of them, must occur in the
// documents it cites.
const (
	minGroundedShare  = 0.8
	minGroundedTokens = 3
	minAnswerWords    = 3
)

// framingWords may appear in a lesson without occurring in its cited
// documents: the words that phrase a question or an answer rather than
// carry its content (the deterministic encoder's templates use only these).
const framingWords = `yes no not none use using used need needed require required requires
change changed changes changing edit edited editing file files test tests testing fail fails failed failing failure
fix fixed fixes fixing pass passes passed passing run runs running ran ci review reviewer reviewers reviewed asked ask
together update updated updating add added adding remove removed removing keep kept make makes made instead also only
all any each every both same other new old first last because can cannot can't they their them its one two
known know happen happens happened cause caused causes break breaks broke broken error errors while without via into
than more less lesson lessons commit commits change path paths repository repo project code agent agents
true false value values name names called call calls line lines expect expected expects work works worked
get gets got set sets need needs done happen why what did been being there here some many much well like
fixed failed broke were edited test's file's also always never target targets step steps`

// rejection reasons' leading words, stable for callers and docs.
const (
	reasonSchema      = "schema"
	reasonLength      = "length"
	reasonCitation    = "citation"
	reasonSuspicious  = "suspicious source"
	reasonSelf        = "not self-contained"
	reasonHidden      = "hidden characters"
	reasonURL         = "url"
	reasonMarkup      = "markup"
	reasonCommand     = "shell command"
	reasonInstruction = "instruction to agents"
	reasonHarmful     = "harmful advice"
	reasonSecret      = "secret-like string"
	reasonEncoded     = "encoded payload"
	reasonScript      = "mixed-script word"
	reasonUngrounded  = "ungrounded"
	reasonThin        = "too thin"
	reasonLimit       = "limit"
)

var (
	// urlPattern matches links that are rejected wherever they appear.
	urlPattern = regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://|(^|[\s(\[<"'])//[a-z0-9-]+\.|\bwww\.|\bmailto:|\bjavascript:|\bdata:[a-z]+/|\bfile:/)`)
	// ipPattern matches an IPv4 address; only loopback, 0.0.0.0 and
	// addresses the diff contains are allowed.
	ipPattern = regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b`)
	// hostPattern matches a bare host name or host/path (evil.example/x,
	// config-mirror.xyz); it is rejected unless the diff contains it (a Go
	// import path, a script the PR adds).
	hostPattern = regexp.MustCompile(`(?i)\b[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}[a-z0-9-]*/[^\s)\]>"'` + "`" + `]*|` +
		`\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|net|org|io|sh|dev|ai|xyz|ru|cn|co|me|ly|tk|ws|pw|su|onion|icu|cf|ga|gq|gg|biz|website)\b`)
	markupPattern = regexp.MustCompile("(?i)(\\]\\(|\\]\\[|```|~~~|<\\s*/?\\s*(script|img|iframe|a|svg|style|object|embed|link|meta|form|input|details|summary|div|span|body|html|base|button|textarea|video|audio|source|math)\\b|\\bon(error|load|click|mouseover)\\s*=)")
	// commandPattern finds the start of a shell command in prose.
	commandPattern = regexp.MustCompile(`(?i)(\b(curl|wget|sudo|chmod|chown|chattr|nc|ncat|netcat|socat|telnet|powershell|pwsh|iex|invoke-expression|invoke-webrequest|iwr|npx|bunx|crontab|mkfifo|ssh|scp|rsync|tftp|kubectl|nohup|setsid|xargs|osascript|certutil|bitsadmin|regsvr32|mshta|rundll32|printenv)\b|\b(eval|exec|su)\s+[-"'$(./~` + "`" + `]|` +
		`\brm\s+-\w+|\b(ba|z|k|da)?sh\s+-\w|\bnpm\s+(i|install|exec|run)\b|\byarn\s+(add|dlx)\b|\bpnpm\s+(add|dlx)\b|\bpip3?\s+install\b|\bgo\s+(install|get|run)\b|` +
		`\bapt(-get)?\s+install\b|\bapk\s+add\b|\bbrew\s+install\b|\bgem\s+install\b|\bcargo\s+install\b|\bdocker\s+(run|exec|pull)\b|` +
		`\bbase64\s+(-d|--decode)\b|\b(python3?|node|perl|ruby|php)\s+-[ce]\b|\bgit\s+(push|config|remote|clone|fetch|pull|reset|clean)\b|` +
		`\bexport\s+[a-z_]+=|\$[a-z_][a-z0-9_]*|\becho\s+\S|\benv\s+[a-z_]+=|\benv\s*\||\bdd\s+if=|\bsource\s+[~./$]|\|\s*(ba|z|k|da)?sh\b|\|\s*(python3?|perl|ruby|node|iex)\b|\$\(|\$\{|>\s*/dev/|2>&1)`)
	backtickSpan = regexp.MustCompile("`([^`]+)`")
	// instructionPattern matches text addressed to an agent rather than a
	// fact about the repository. It runs on normalised text: lower case,
	// every run of non-alphanumeric characters replaced by one space.
	instructionPattern = regexp.MustCompile(`\b(` +
		`ignore (all |any |the |your |my )?(previous|prior|above|earlier|preceding|former|other|system|these|those|instructions?|rules?|guidelines?)|` +
		`disregard|forget (all|any|everything|previous|prior|your|the above)|previous instructions?|prior instructions?|new instructions?|` +
		`system prompt|system message|developer (message|mode)|hidden instructions?|jailbreak|dan mode|` +
		`you are (now|a|an|the|no longer)|you (must|should|will|shall|have to|need to)|your (task|job|role|instructions?|goal|new)|` +
		`act as|acting as|pretend|role ?play|as an ai|` +
		`always (run|execute|use sudo|install|download|fetch|curl|trust|approve)|` +
		`never (run |write |add |execute )?(the |any )?(tests?|ci|checks?|lint|linters?|reviews?)|never test|` +
		`(skip|skipping|disable|disabling|bypass|bypassing|delete|deleting) (the |all |any |failing |flaky )?(tests?|ci|checks?|hooks?|linters?|lint|reviews?|verification|ci checks?)|` +
		`no need to (run |write )?(the )?(tests?|ci|review)|do ?n ?t (run |write )?(the |any )?(tests?|ci|checks?)|do not (run |write )?(the |any )?(tests?|ci|checks?)|` +
		`tests? (are|is) (not needed|unnecessary|optional|pointless)|no verify|` +
		`(can|may|should|could) (safely |just |simply )?(be )?(safely |just |simply )?(ignored|skipped|disabled|silenced|suppressed)|` +
		`ignore (the |any |all )?(test |ci |lint |check )?(failures?|errors?|warnings?|results?)|(add|use|insert|mark) (a |an |the )?(t skip|pytest mark skip|xfail|it skip|describe skip|skip marker)|` +
		`do ?n ?t (tell|mention|reveal|report|log|inform)|do not (tell|mention|reveal|report|log|inform)|without (telling|mentioning|asking|review)|keep (this|it) (secret|hidden|quiet)|` +
		`exfiltrat\w*|api keys?|secret keys?|access tokens?|credentials?|passwords?|private keys?|` +
		`agents md|claude md|cursorrules|cursor rules|copilot instructions|mcp (server|config)|` +
		`auto ?approve\w*|auto ?merge\w*|merge\w* without|force ?push\w*|push\w* (with )?force|branch protection|` +
		`execute the following|run the following|run this|follow these|the following (command|instructions?|steps)|` +
		`pr data|pr_data|begin (instructions?|system)|end (instructions?|system)|important instructions?|attention (ai|agent|assistant|model)|` +
		`(ai|coding|autonomous) agents? (must|should|will|always|never)|agents? (must|should) (always|never)` +
		`)\b`)
	// injectionMarker matches (in normalised text) phrases that only make
	// sense addressed to a model; a document containing one is suspicious.
	injectionMarker = regexp.MustCompile(`\b(` +
		`ignore (all |any |the |your |my )?(previous|prior|above|earlier|preceding|former) |ignore (all |any |your )?(instructions|rules|guidelines)|` +
		`disregard (all|any|the|your|previous|prior|everything)|forget (all|everything|your|previous|prior) |previous instructions|prior instructions|new instructions|` +
		`system prompt|developer mode|jailbreak|you are now|you are no longer|pretend (you|to be)|act as (a|an|the|if)|role ?play|` +
		`(ai|coding|autonomous) (agents?|assistants?|models?) (must|should|will|always|never)|attention (ai|agent|assistant|model)|` +
		`pr data|pr_data|im start|im end|end of (data|input|document)` +
		`)`)
	rolePattern   = regexp.MustCompile(`(?i)(^|[\s\[(<"'])(system|assistant|user|human|developer|tool)\s*:|<\|[a-z_]*\|?>|\[/?inst\]|<</?sys>>|###\s*(instruction|system|response)`)
	secretPattern = regexp.MustCompile(`(?i)(\b(ghp|gho|ghu|ghs|ghr)_[a-z0-9]{10,}|\bgithub_pat_\w{10,}|\bsk-[a-z0-9_-]{10,}|\bsk-ant-|\bxox[abposr]-[a-z0-9-]{6,}|` +
		`\bAKIA[0-9A-Z]{12,}|\bASIA[0-9A-Z]{12,}|\bAIza[0-9a-z_-]{20,}|\bglpat-[a-z0-9_-]{10,}|\bnpm_[a-z0-9]{20,}|\bhf_[a-z0-9]{20,}|` +
		`-----BEGIN [A-Z ]*PRIVATE KEY|\beyJ[a-z0-9_-]{10,}\.[a-z0-9_-]{10,}|` +
		`\b[a-z0-9_]*(token|secret|passwd|password|api_?key|private_?key|access_?key)[a-z0-9_]*\s*[:=]\s*\S+|` +
		`\b[0-9a-f]{32,}\b)`)
	longBlob    = regexp.MustCompile(`[A-Za-z0-9+/_=-]{40,}`)
	base64Token = regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}={0,2}`)
	selfRef     = regexp.MustCompile(`(?i)\b(this|that|these|the above|the same|the current|the previous|the following) (prs?|pull requests?|changes?|commits?|diffs?|patch|patches|documents?|text|comments?|author|issue|review)\b|\bthe (pr|pull request|diff|patch|documents?|text|author|comment|reviewer)\b|\bthe above\b|\bas mentioned\b|\baccording to\b|\bmentioned (above|earlier)\b|\bpr ?#\d+|\bpull request #?\d+|#\d+\b`)
	leadPronoun = regexp.MustCompile(`(?i)^(it|this|that|they|these|those|he|she|we|here|there)\b`)
)

// checker validates lessons against the documents of one PR.
type checker struct {
	docs      map[string]Document
	docTokens map[string]map[string]bool
	paths     map[string]bool
	diff      string // normalised text of every patch, for the command allowlist
	framing   map[string]bool
	harm      *harmMatcher
}

func newChecker(docs []Document) *checker {
	c := &checker{
		docs:      map[string]Document{},
		docTokens: map[string]map[string]bool{},
		paths:     map[string]bool{},
		framing:   map[string]bool{},
		harm:      newHarmMatcher(harmWords),
	}
	var diff strings.Builder
	for _, d := range docs {
		c.docs[d.ID] = d
		set := map[string]bool{}
		for _, t := range groundTokens(d.Text) {
			set[t] = true
		}
		c.docTokens[d.ID] = set
		if d.Kind == "diff" {
			c.paths[d.Path] = true
			for _, line := range strings.Split(d.Text, "\n") {
				if strings.HasPrefix(line, "@@") {
					continue
				}
				diff.WriteString(strings.TrimLeft(line, "+- "))
				diff.WriteByte('\n')
			}
		}
	}
	c.diff = normalizeCommand(diff.String())
	for _, t := range groundTokens(framingWords) {
		c.framing[t] = true
	}
	return c
}

// groundTokens returns the darwin-memo tokens of s with leading and
// trailing dots and asterisks trimmed ("fails." and "fails" are the same
// word for grounding).
func groundTokens(s string) []string {
	var out []string
	for _, t := range rank.Tokens(s) {
		t = strings.Trim(t, ".*")
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// contentWords returns the grounding tokens of s that are not framing words.
func contentWords(s string, framing map[string]bool) []string {
	var out []string
	for _, t := range groundTokens(s) {
		if !framing[t] {
			out = append(out, t)
		}
	}
	return out
}

// check returns why l must be rejected, or "" when it passes every rule.
// Rules run in a fixed order and the first failure is reported.
func (c *checker) check(l RawLesson) string {
	// 1. schema
	if !slices.Contains(lessonKinds, l.Kind) {
		return fmt.Sprintf("%s: kind %q is not one of %s", reasonSchema, l.Kind, strings.Join(lessonKinds, ", "))
	}
	if len(l.Evidence) == 0 {
		return reasonSchema + ": no evidence ids cited"
	}
	if len(l.Evidence) > maxEvidence {
		return fmt.Sprintf("%s: %d evidence ids, at most %d", reasonSchema, len(l.Evidence), maxEvidence)
	}
	// 2. hidden characters (checked on the raw text, before any whitespace folding)
	for _, s := range []string{l.Question, l.Answer} {
		if r, ok := hiddenRune(s); ok {
			return fmt.Sprintf("%s: U+%04X", reasonHidden, r)
		}
	}
	q, a := oneLine(l.Question), oneLine(l.Answer)
	// 3. lengths
	if n := utf8.RuneCountInString(q); n < minQuestion || n > maxQuestion {
		return fmt.Sprintf("%s: question has %d characters, want %d to %d", reasonLength, n, minQuestion, maxQuestion)
	}
	if n := utf8.RuneCountInString(a); n < minAnswer || n > maxAnswer {
		return fmt.Sprintf("%s: answer has %d characters, want %d to %d", reasonLength, n, minAnswer, maxAnswer)
	}
	if !strings.HasSuffix(q, "?") {
		return reasonSchema + ": question does not end with a question mark"
	}
	// 4. citations and paths
	for _, id := range l.Evidence {
		d, ok := c.docs[id]
		if !ok {
			return fmt.Sprintf("%s: cites %q, which is not a document of the pull request", reasonCitation, capText(id, 80))
		}
		if d.Suspicious != "" {
			return fmt.Sprintf("%s: cites %s, whose text looks like an injection attempt (%s)", reasonSuspicious, id, d.Suspicious)
		}
	}
	for _, p := range l.Paths {
		if !c.paths[p] {
			return fmt.Sprintf("%s: path %q is not a changed file", reasonCitation, capText(p, 80))
		}
	}
	text := q + " " + a
	// 5. self-containment
	if m := selfRef.FindString(text); m != "" {
		return fmt.Sprintf("%s: refers to %q", reasonSelf, m)
	}
	if m := leadPronoun.FindString(q); m != "" {
		return fmt.Sprintf("%s: question starts with %q", reasonSelf, m)
	}
	// 6. links, markup
	if m := urlPattern.FindString(text); m != "" {
		return fmt.Sprintf("%s: %q", reasonURL, strings.TrimSpace(m))
	}
	for _, m := range ipPattern.FindAllString(text, -1) {
		if !strings.HasPrefix(m, "127.") && m != "0.0.0.0" && !strings.Contains(c.diff, m) {
			return fmt.Sprintf("%s: IP address %q", reasonURL, m)
		}
	}
	for _, m := range hostPattern.FindAllString(text, -1) {
		if !strings.Contains(c.diff, strings.ToLower(m)) {
			return fmt.Sprintf("%s: %q is not in the diff", reasonURL, m)
		}
	}
	if m := markupPattern.FindString(text); m != "" {
		return fmt.Sprintf("%s: %q", reasonMarkup, m)
	}
	// 7. instructions aimed at agents
	if m := rolePattern.FindString(text); m != "" {
		return fmt.Sprintf("%s: role marker %q", reasonInstruction, strings.TrimSpace(m))
	}
	if m := instructionPattern.FindString(normalizeWords(text)); m != "" {
		return fmt.Sprintf("%s: %q", reasonInstruction, m)
	}
	// 7b. advice to weaken tests, expose secrets or disable security checks (harmful.go)
	if why := c.harm.harmful(q + "\n" + a); why != "" {
		return fmt.Sprintf("%s: %s", reasonHarmful, why)
	}
	// 8. secrets and encoded payloads
	if m := secretPattern.FindString(text); m != "" {
		return fmt.Sprintf("%s: %q", reasonSecret, capText(m, 12))
	}
	if m, ok := blob(text); ok {
		return fmt.Sprintf("%s: %q", reasonSecret, capText(m, 12))
	}
	if m, ok := encodedPayload(text); ok {
		return fmt.Sprintf("%s: %q", reasonEncoded, capText(m, 12))
	}
	// 9. shell commands the diff does not contain
	if cmd, ok := c.foreignCommand(text); ok {
		return fmt.Sprintf("%s not in the diff: %q", reasonCommand, capText(cmd, 60))
	}
	// 10. homoglyphs
	if w, ok := mixedScript(text); ok {
		return fmt.Sprintf("%s: %q", reasonScript, w)
	}
	// 11. grounding
	return c.grounded(text, a, l.Evidence)
}

// grounded returns "" when enough of text's content tokens occur in the
// cited documents, and a rejection reason naming some missing words
// otherwise.
func (c *checker) grounded(text, answer string, cites []string) string {
	if n := len(contentWords(answer, c.framing)); n < minAnswerWords {
		return fmt.Sprintf("%s: the answer has %d content words, want %d", reasonThin, n, minAnswerWords)
	}
	content := contentWords(text, c.framing)
	var missing []string
	for _, t := range content {
		if !slices.ContainsFunc(cites, func(id string) bool { return c.docTokens[id][t] }) {
			missing = append(missing, t)
		}
	}
	grounded := len(content) - len(missing)
	if grounded < minGroundedTokens {
		return fmt.Sprintf("%s: only %d content words occur in the cited documents, want %d", reasonUngrounded, grounded, minGroundedTokens)
	}
	if share := float64(grounded) / float64(len(content)); share < minGroundedShare {
		if len(missing) > 5 {
			missing = missing[:5]
		}
		return fmt.Sprintf("%s: %.0f%% of content words occur in the cited documents, want %.0f%%; missing %s",
			reasonUngrounded, 100*share, 100*minGroundedShare, strings.Join(missing, ", "))
	}
	return ""
}

// foreignCommand finds a shell command in text that the diff does not
// contain. A command starts at a command word or shell operator and runs
// to the end of its backtick span or clause.
func (c *checker) foreignCommand(text string) (string, bool) {
	var spans []string
	for _, m := range backtickSpan.FindAllStringSubmatch(text, -1) {
		if commandPattern.MatchString(m[1]) {
			spans = append(spans, m[1])
		}
	}
	rest := backtickSpan.ReplaceAllString(text, " ")
	for _, loc := range commandPattern.FindAllStringIndex(rest, -1) {
		spans = append(spans, rest[loc[0]:loc[1]]+commandArgs(rest[loc[1]:]))
	}
	for _, s := range spans {
		n := normalizeCommand(s)
		if n == "" || !strings.Contains(c.diff, n) {
			return strings.TrimSpace(s), true
		}
	}
	return "", false
}

// commandArgs returns up to two whitespace-separated arguments at the
// start of s, stopping at the end of the clause.
func commandArgs(s string) string {
	var b strings.Builder
	for n := 0; n < 2; n++ {
		trimmed := strings.TrimLeft(s, " \t")
		if trimmed == "" {
			break
		}
		i := strings.IndexAny(trimmed, " \t\n")
		if i < 0 {
			i = len(trimmed)
		}
		tok := trimmed[:i]
		stop := strings.IndexAny(tok, ";,!?") >= 0 || strings.HasSuffix(tok, ".")
		tok = strings.TrimRight(strings.TrimRight(tok, ";,!?"), ".")
		if tok != "" {
			b.WriteString(" " + tok)
		}
		if stop {
			break
		}
		s = trimmed[i:]
	}
	return b.String()
}

// blob finds a run of 40 or more token characters that mixes letters and
// digits and is not a path of short segments: a key, token or digest.
func blob(s string) (string, bool) {
	for _, m := range longBlob.FindAllString(s, -1) {
		pathLike := !slices.ContainsFunc(strings.Split(m, "/"), func(seg string) bool { return len(seg) > 30 })
		if pathLike || !strings.ContainsAny(m, "0123456789") {
			continue
		}
		return m, true
	}
	return "", false
}

func normalizeCommand(s string) string {
	return strings.ToLower(oneLine(s))
}

// normalizeWords lower-cases s and replaces every run of characters other
// than letters and digits by one space, so that "Ignore-previous" and
// "ignore   previous" look alike.
func normalizeWords(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return b.String()
}

// hiddenRune returns the first character of s that Sanitize would drop or
// replace (other than newline and tab).
func hiddenRune(s string) (rune, bool) {
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if invisible(r) || unicode.IsControl(r) || (r >= 0xFF01 && r <= 0xFF5E) || r == utf8.RuneError {
			return r, true
		}
	}
	return 0, false
}

// encodedPayload finds a base64 token of 16+ characters that decodes to
// mostly printable text: a message smuggled past the word filters.
func encodedPayload(s string) (string, bool) {
	for _, m := range base64Token.FindAllString(s, -1) {
		if !hasLetterAndDigitOrCase(m) {
			continue
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			b, err := enc.DecodeString(m)
			if err != nil || len(b) < 8 {
				continue
			}
			printable := 0
			for _, c := range b {
				if c >= 0x20 && c < 0x7f {
					printable++
				}
			}
			if float64(printable) >= 0.9*float64(len(b)) {
				return m, true
			}
		}
	}
	return "", false
}

// hasLetterAndDigitOrCase reports whether s mixes upper and lower case or
// letters and digits, which identifiers like "TestLoadStoreRoundTrip"
// also do, but plain words never do.
func hasLetterAndDigitOrCase(s string) bool {
	var upper, lower, digit bool
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	return (upper && lower && digit) || (digit && (upper || lower) && len(s) >= 20) || (upper && lower && strings.ContainsAny(s, "+/="))
}

// mixedScript finds a word that mixes Latin letters with letters of another
// script (Cyrillic "а" inside "Аlways"): a homoglyph disguise.
func mixedScript(s string) (string, bool) {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		var latin, other bool
		for _, r := range w {
			if unicode.Is(unicode.Latin, r) {
				latin = true
			} else {
				other = true
			}
		}
		if latin && other {
			return w, true
		}
	}
	return "", false
}
