package rank

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Answer-type checking, as question-answering systems do it (Harabagiu et
// al., FALCON, 2000; Li and Roth's question classes, 2002): a question
// whose expected answer is a number is answered only by a text holding
// one (a version only by a text holding a version number, a date only by
// a text writing one in digits or naming a month, a weekday or a period),
// a question asking who only by a text naming a person or a group, and a
// question asking for a URL only by a text holding a web address.
// A store's lessons name the things a repository has ("the mailers queue",
// "the prod deploy workflow"), and a query asking for a quantity or an
// owner of one of them ("what concurrency does the mailers queue run
// with", "who approves the prod deploy workflow") matches that lesson's
// words fully while the lesson may not state it at all. The confidence
// model reads, as one more feature, whether the query asks for a type of
// answer the lesson's answer cannot hold (ConfidenceModel.Unstated).

// An AnswerType is the kind of answer a question expects, of the classes
// the check reads; AnyAnswer for every other question.
type AnswerType int

const (
	AnyAnswer  AnswerType = iota
	Quantity              // Li and Roth's numeric class (NUM)
	Version               // a quantity whose head word is "version": a version number
	Person                // Li and Roth's human class (HUM): a person or a group
	WebAddress            // a URL: where on the web, or on a server, a thing is
	Date                  // Li and Roth's date class (NUM:date): a day, a month, a year
)

// quantityWords are the head nouns that make a "what" or "which"
// question ask for a quantity: the numbers a repository's notes state (a
// version, a port, a timeout, a size, a limit, a count), compared by their
// stems. Elsewhere they ask nothing ("fix the flaky timeout", "port the
// module").
var quantityWords = []string{"version", "port", "timeout", "size", "limit", "count", "number"}

// webWords are the head nouns that make a "what" or "which" question ask
// for a web address ("what's the URL of the staging bucket", "which link
// do testers open"), compared by their stems.
var webWords = []string{"url", "uri", "link"}

// webAddress matches how a text writes a web address: a scheme
// (https://), www., a path from the root ("/q/health/ready", the address
// on a server the question's thing already names), or a host name of
// three or more labels (api.tripnote.app). A file name of two labels
// (package.json) is not one; one of three (site.tar.gz) reads as one, so
// the check errs toward a lesson stating the address.
var webAddress = regexp.MustCompile(`://|www\.|(^|[\s("'` + "`" + `])/\w|\b[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+\.[a-z]{2,}\b`)

// headWindow is how far after "what" or "which" a quantity word may stand
// and still head its phrase ("which jasmine version", "what port does the
// local server listen on").
const headWindow = 4

// dateWords are the head nouns that make a "what" or "which" question ask
// for a date ("what year was the manual published", "which day does the
// freeze start"), compared by their stems.
var dateWords = []string{"date", "day", "month", "year"}

// dateAuxiliaries are the verbs after which an opening "when" asks for a
// date or a time, Li and Roth's "when" questions of the date class: "when
// did the tag get renamed", "when does the licence expire", "when is the
// next release". Before any other word ("when should we rotate", "when
// to recalibrate") or with the asker as its subject ("when do I bump the
// release", askers), "when" asks for the condition under which to act, and
// is not read.
var dateAuxiliaries = []string{"did", "was", "were", "does", "do", "is", "are", "will"}

// askers are the pronouns by which a question asks what its asker should
// do.
var askers = []string{"i", "we", "you"}

// calendarNames are the months and weekdays, by which a text states a
// date without a digit. English writes them capitalised, and only so are
// they read: "may" and "march" are verbs too ("agents may be older").
var calendarNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
	"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// periodNames are the words by which a text states when a thing recurs or
// happens relative to now, compared lower-cased.
var periodNames = []string{"daily", "nightly", "weekly", "monthly", "quarterly", "yearly", "annually", "today", "tomorrow", "yesterday"}

// dateNumber matches how a text writes a date or a span of time with
// digits: a year (2024), an ISO date (2024-03-01), a day and month
// (03/01), an ordinal (the 25th), a time of day (02:00), a quarter (Q3),
// or a number of days, weeks, months, years or hours ("90 days"). A
// version (4.5.7), a port or a model number (K80) is not one.
var dateNumber = regexp.MustCompile(`\b(19|20)\d\d\b|\b\d{1,2}/\d{1,2}\b|\b\d{1,2}(st|nd|rd|th)\b|\b\d{1,2}:\d\d\b|\bQ[1-4]\b|\b\d+\s*(days?|weeks?|months?|years?|hours?|hrs?|d|h)\b`)

// quantityPairs are the question openings of Li and Roth's numeric class:
// how many, how much, how long, how often, how far, what time.
var quantityPairs = [][2]string{{"how", "many"}, {"how", "much"}, {"how", "long"}, {"how", "often"}, {"how", "far"}, {"what", "time"}}

// versionNumber matches how a text writes a version: digits joined by a
// dot (1.22, 3.19.6), a v and a digit (v5), or a major of two digits on
// its own (Node 20, PostgreSQL 16). A number of three or more digits is a
// port, a size or a count ("listens on 5432"), and a lone digit too
// ambiguous to read as one.
var versionNumber = regexp.MustCompile(`\d\.\d|\b[vV]\d|\b\d\d\b`)

// personWords are the nouns by which a text names people or a group of
// them without a name ("the platform team", "the on-call engineer", "a
// maintainer"), compared by their stems.
var personWords = []string{"admin", "administrator", "anyone", "approver", "contact", "developer", "engineer", "everyone", "group",
	"lead", "maintainer", "manager", "member", "nobody", "oncall", "owner", "people", "person", "reviewer", "squad", "team"}

// Asks returns the type of answer a query asks for: Person when it opens
// with "who", "whom" or "whose"; Quantity when it holds one of Li and
// Roth's numeric openings, or a "what" or "which" followed within
// headWindow words by a word naming a number a repository keeps (the head
// word of the question, as question classifiers read it), Version when
// that word is "version"; WebAddress when that word names a URL
// (webWords); Date when that word names a date (dateWords) or the query
// opens with "when" and an auxiliary (dateAuxiliaries) not followed by an
// asker; else AnyAnswer.
func Asks(query string) AnswerType {
	ws := words(query)
	if len(ws) > 0 && (ws[0] == "who" || ws[0] == "whom" || ws[0] == "whose") {
		return Person
	}
	if len(ws) > 1 && ws[0] == "when" && slices.Contains(dateAuxiliaries, ws[1]) && (len(ws) == 2 || !slices.Contains(askers, ws[2])) {
		return Date
	}
	wh := -headWindow - 1 // where the last "what" or "which" stands
	for i, w := range ws {
		if w == "what" || w == "which" {
			wh = i
		}
		if st := Stem(w); i-wh <= headWindow {
			switch {
			case slices.Contains(webWords, st):
				return WebAddress
			case st == "version":
				return Version
			case slices.Contains(dateWords, st):
				return Date
			case slices.Contains(quantityWords, st):
				return Quantity
			}
		}
		if i+1 < len(ws) && slices.Contains(quantityPairs, [2]string{w, ws[i+1]}) {
			return Quantity
		}
	}
	return AnyAnswer
}

// Unstated reports whether a query asks for a type of answer (Asks) that
// answer cannot hold.
func Unstated(query, answer string) bool { return !Asks(query).StatedBy(answer) }

// StatedBy reports whether a text can state an answer of type t: for a
// quantity, it holds an ASCII digit; for a version, a version number
// (versionNumber); for a person, it names one (namesPerson); for a web
// address, it holds one (webAddress); for a date, it writes one in digits
// (dateNumber), names a month or a weekday (calendarNames) or a period
// (periodNames).
func (t AnswerType) StatedBy(text string) bool {
	switch t {
	case Quantity:
		return strings.ContainsAny(text, "0123456789")
	case Version:
		return versionNumber.MatchString(text)
	case Person:
		return namesPerson(text)
	case WebAddress:
		return webAddress.MatchString(text)
	case Date:
		if dateNumber.MatchString(text) {
			return true
		}
		for _, w := range letterRuns(text) {
			if slices.Contains(calendarNames, w) || slices.Contains(periodNames, strings.ToLower(w)) {
				return true
			}
		}
		return false
	}
	return true
}

// namesPerson reports whether a text can say who: it holds a word naming
// people (personWords, or "on call"), a GitHub handle or team (@name, but
// not a decorator such as @Route.get or @Test(...)), or a name, a
// capitalised word inside a sentence ("ask Priya", "audited by
// Spearbit"). Product names read as names too ("run it on Postgres"): the
// check may let a lesson pass that names no one, never the reverse for
// the forms it knows.
func namesPerson(text string) bool {
	ws := words(text)
	for i, w := range ws {
		if slices.Contains(personWords, Stem(w)) || w == "on" && i+1 < len(ws) && ws[i+1] == "call" {
			return true
		}
	}
	for rest := text; ; {
		i := strings.IndexByte(rest, '@')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		n := 0
		for n < len(rest) && (isWordByte(rest[n]) || rest[n] == '-' || rest[n] == '_') {
			n++
		}
		decorator := n < len(rest) && (rest[n] == '(' || rest[n] == '.' && n+1 < len(rest) && isWordByte(rest[n+1]))
		if n > 0 && !decorator {
			return true
		}
	}
	fs := strings.Fields(text)
	for i := 1; i < len(fs); i++ {
		if !strings.ContainsAny(fs[i-1][len(fs[i-1])-1:], ".!?:") && isName(strings.TrimRight(fs[i], ".,;:!?)")) {
			return true
		}
	}
	return false
}

// isName reports whether w is a capitalised ASCII word: an upper-case
// letter, then lower-case letters only.
func isName(w string) bool {
	if len(w) < 2 || w[0]-'A' >= 26 {
		return false
	}
	for i := 1; i < len(w); i++ {
		if w[i]-'a' >= 26 {
			return false
		}
	}
	return true
}

// words returns the lower-cased runs of letters of s.
func words(s string) []string { return letterRuns(strings.ToLower(s)) }

// letterRuns returns the runs of letters of s.
func letterRuns(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
}
