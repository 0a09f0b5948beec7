// Package report renders what the action did as GitHub-flavoured Markdown: the bot pull
// request's body and the step summary. It shows settlements with links to the commits they
// compared, births, deaths with obituaries, merges, a survivors table, a Mermaid chart of
// population and energy, and warnings. Rendering is deterministic and bounded: GitHub refuses
// pull-request bodies over 65,536 characters, so long lists are cut with a note.
package report

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/mdsafe"
)

// MaxBody is the budget kept under GitHub's 65,536-character pull-request body limit.
const MaxBody = 60000

// listCap is how many births, deaths and merges the report lists before "… N more".
const listCap = 40

// Marker starts every body the action writes, so people and tools can recognise it.
const Marker = "<!-- darwin-memo-action -->"

// Report is everything one bot pull request shows.
type Report struct {
	// RepoURL is https://github.com/owner/name (links to commits and pull requests).
	RepoURL string
	// RunURL links to the workflow run that wrote the report, if known.
	RunURL      string
	StorePath   string
	Settlements []Settlement
	Births      []Birth
	Proposed    []Proposal
	Deaths      []Death
	Merges      []Merge
	// Survivors are the living lessons, most energy first (ties by id); the body lists the
	// first MaxSurvivors. A report may hold only those and count the rest in MoreSurvivors.
	Survivors     []Survivor
	MoreSurvivors int
	Trend         []Point
	Warnings      []string
	// Queued lists merged pull requests whose CI is still pending.
	Queued []int
	// Tick is the ledger's tick count after the update.
	Tick   int
	DryRun bool
	// Citations are what merged pull requests' renames and removals did to the lessons'
	// citations, one per pull request.
	Citations []Citations
}

// Citations is what one merged pull request did to the lessons' citations: the cited paths
// it renamed (followed in the store) and those it removed.
type Citations struct {
	PR     int
	Moved  []Moved
	Broken []Broken
}

// Moved is a cited path a pull request renamed, and how many lessons followed it.
type Moved struct {
	From, To string
	Lessons  int
}

// Broken is a cited path a pull request removed: how many lessons cited it, and those it
// leaves without any valid citation.
type Broken struct {
	Path     string
	Lessons  int
	Orphaned []Lesson
}

// Lesson names a lesson in a list.
type Lesson struct{ ID, Question string }

// Settlement is one merged pull request whose tickets were settled (or refused).
type Settlement struct {
	PR          int
	Title       string
	Outcome     string // settled, refused, no-tickets, abstained
	Delta       *float64
	Source      string
	Before      string
	After       string
	Quarantined []string
	Settled     []string
	Refused     []string
	// Reason says why a final abstention (Outcome abstained) measured nothing.
	Reason string
}

// Birth is a lesson added to the store.
type Birth struct {
	ID, Question, Answer string
	Sources              []string
}

// Proposal is a lesson from an author outside the trusted associations, not added.
type Proposal struct {
	PR               int
	Question, Answer string
	Author           string
}

// Death is a lesson that died, with its obituary.
type Death struct {
	ID, Question string
	// Cause is executed, starved, forgotten or merged.
	Cause string
	// Heir is the lesson it was merged into, for cause merged.
	Heir    string
	Uses    int
	Notes   []string
	Lineage []string
}

// Merge is a consolidated lesson born from near-duplicates.
type Merge struct {
	ID, Question string
	Members      []string
	Energy       float64
}

// MaxSurvivors is how many survivors the body lists.
const MaxSurvivors = 50

// Survivor is one living lesson.
type Survivor struct {
	ID, Question      string
	Energy            float64
	TicksToStarvation *float64
	Uses              int
	Pinned            bool
	New               bool
}

// Point is the population after one processed pull request.
type Point struct {
	Label      string
	Population int
	Energy     float64
}

// Title is the bot pull request's title.
func Title(r Report) string {
	var parts []string
	if n := len(r.Settlements); n > 0 {
		parts = append(parts, plural(n, "merge", "merges")+" settled")
	}
	if n := len(r.Births); n > 0 {
		parts = append(parts, plural(n, "birth", "births"))
	}
	if n := len(r.Deaths); n > 0 {
		parts = append(parts, plural(n, "death", "deaths"))
	}
	if len(parts) == 0 {
		return "darwin-memo: lessons update"
	}
	return "darwin-memo: " + strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Body renders the bot pull request's body.
func Body(r Report) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	b.WriteString("## darwin-memo: lessons measured by CI\n\n")
	fmt.Fprintf(&b, "This pull request updates %s", mdsafe.Code(r.StorePath))
	b.WriteString(" from merged pull requests: each lesson an agent consulted earns or loses energy by the CI pass delta of the pull request that used it. Review it like code, then merge it; the action keeps it up to date until then.\n")
	if r.DryRun {
		b.WriteString("\n> **Dry run:** nothing was written.\n")
	}
	body := b.String()
	sections := []string{
		warnings(r),
		settlements(r),
		citations(r),
		births(r),
		deaths(r),
		merges(r),
		trend(r),
		survivors(r),
		footer(r),
	}
	for _, s := range sections {
		if s == "" {
			continue
		}
		if len(body)+len(s) > MaxBody {
			body += "\n_(The rest of this report was cut to stay under GitHub's body limit; see the step summary of the run.)_\n"
			break
		}
		body += s
	}
	return body
}

// Summary renders the step summary: the same report under a heading naming the outcome.
func Summary(r Report, headline string) string {
	return "# darwin-memo: " + headline + "\n\n" + strings.TrimPrefix(Body(r), Marker+"\n")
}

func (r Report) commitLink(sha string) string {
	if sha == "" {
		return "?"
	}
	short := sha
	if len(short) > 7 {
		short = short[:7]
	}
	if r.RepoURL == "" || strings.Trim(sha, "0123456789abcdef") != "" {
		return mdsafe.Code(short)
	}
	return fmt.Sprintf("[`%s`](%s/commit/%s)", short, r.RepoURL, sha)
}

func (r Report) prLink(n int) string {
	if r.RepoURL == "" {
		return fmt.Sprintf("#%d", n)
	}
	return fmt.Sprintf("[#%d](%s/pull/%d)", n, r.RepoURL, n)
}

// codes quotes identifiers as code spans joined by ", ".
func codes(l []string) string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = mdsafe.Code(s)
	}
	return strings.Join(out, ", ")
}

func fmtFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}

func fmtDelta(d *float64) string {
	if d == nil {
		return "–"
	}
	if *d == math.Trunc(*d) {
		return fmt.Sprintf("%+d", int64(*d))
	}
	return fmt.Sprintf("%+.3f", *d)
}

func warnings(r Report) string {
	if len(r.Warnings) == 0 && len(r.Queued) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### ⚠️ Warnings\n\n")
	for _, w := range r.Warnings {
		b.WriteString("- " + warning(w) + "\n")
	}
	if len(r.Queued) > 0 {
		var links []string
		for _, n := range r.Queued {
			links = append(links, r.prLink(n))
		}
		b.WriteString("- CI still pending for " + strings.Join(links, ", ") + "; they stay queued and a later run settles them.\n")
	}
	return b.String()
}

// ownRef matches the "#123" the action puts at the start of a warning about a pull request.
var ownRef = regexp.MustCompile(`^#[0-9]+\b`)

// warning quotes one warning. Warnings are the action's sentences with untrusted text inside
// (titles, reasons quoting CI and artifacts), so all of it is quoted except the pull request
// reference the action itself starts it with.
func warning(w string) string {
	if ref := ownRef.FindString(w); ref != "" {
		rest := w[len(ref):]
		if strings.TrimLeft(rest, " ") != rest {
			ref += " "
		}
		return ref + mdsafe.Inline(rest, 400)
	}
	return mdsafe.Inline(w, 400)
}

func settlements(r Report) string {
	if len(r.Settlements) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### Settlements\n\n")
	b.WriteString("| PR | Delta | Source | Before → after | Tickets | Quarantined |\n|---|---:|---|---|---|---|\n")
	for _, s := range r.Settlements {
		tickets := "none"
		switch {
		case s.Outcome == "abstained":
			tickets = "unsettled: abstained for good (" + mdsafe.Inline(s.Reason, 160) + ")"
		case len(s.Settled) > 0 || len(s.Refused) > 0:
			var parts []string
			if len(s.Settled) > 0 {
				parts = append(parts, fmt.Sprintf("%d settled (%s)", len(s.Settled), codes(capList(s.Settled, 4))))
			}
			if len(s.Refused) > 0 {
				parts = append(parts, fmt.Sprintf("%d refused", len(s.Refused)))
			}
			tickets = strings.Join(parts, "; ")
		}
		q := "–"
		if len(s.Quarantined) > 0 {
			q = mdsafe.Inline(strings.Join(capList(s.Quarantined, 3), ", "), 120)
		}
		source := s.Source
		if source == "" {
			source = "–"
		}
		arrow := "–"
		if s.Before != "" || s.After != "" {
			arrow = r.commitLink(s.Before) + " → " + r.commitLink(s.After)
		}
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s | %s | %s |\n", r.prLink(s.PR), mdsafe.Inline(s.Title, 60), fmtDelta(s.Delta), mdsafe.Inline(source, 40), arrow, tickets, q)
	}
	return b.String()
}

func capList(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return append(append([]string{}, l[:n]...), fmt.Sprintf("+%d more", len(l)-n))
}

// citations lists, per merged pull request, the cited paths it removed with the lessons
// each leaves without any valid citation, and the cited paths it renamed.
func citations(r Report) string {
	var b strings.Builder
	for _, c := range r.Citations {
		if len(c.Broken) == 0 && len(c.Moved) == 0 {
			continue
		}
		if len(c.Broken) > 0 {
			fmt.Fprintf(&b, "\n### Citations broken by %s\n\n", r.prLink(c.PR))
		} else {
			fmt.Fprintf(&b, "\n### Citations followed by %s\n\n", r.prLink(c.PR))
		}
		listed := 0
		for i, k := range c.Broken {
			if i == listCap {
				fmt.Fprintf(&b, "- … %d more removed paths\n", len(c.Broken)-listCap)
				break
			}
			fmt.Fprintf(&b, "- %s, cited by %s, was removed", mdsafe.Code(k.Path), plural(k.Lessons, "lesson", "lessons"))
			if len(k.Orphaned) == 0 {
				b.WriteString("; every lesson citing it keeps another citation\n")
				continue
			}
			fmt.Fprintf(&b, "; it leaves %d without any valid citation:\n", len(k.Orphaned))
			for j, l := range k.Orphaned {
				if listed == listCap {
					fmt.Fprintf(&b, "  - … %d more\n", len(k.Orphaned)-j)
					break
				}
				listed++
				fmt.Fprintf(&b, "  - %s %s\n", mdsafe.Code(l.ID), mdsafe.Inline(l.Question, 100))
			}
		}
		if len(c.Broken) > 0 {
			b.WriteString("\nA lesson left without a valid citation pays the store's `stale_upkeep` until CI credits it again or a person cites a file that exists; check whether it still holds.\n")
		}
		if len(c.Moved) > 0 {
			if len(c.Broken) > 0 {
				b.WriteString("\n")
			}
			b.WriteString("Renamed, and followed in the store's citations: ")
			for i, m := range c.Moved {
				if i == listCap {
					fmt.Fprintf(&b, ", … %d more", len(c.Moved)-listCap)
					break
				}
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s → %s (%s)", mdsafe.Code(m.From), mdsafe.Code(m.To), plural(m.Lessons, "lesson", "lessons"))
			}
			b.WriteString(".\n")
		}
	}
	return b.String()
}

func births(r Report) string {
	if len(r.Births) == 0 && len(r.Proposed) == 0 {
		return ""
	}
	var b strings.Builder
	if len(r.Births) > 0 {
		fmt.Fprintf(&b, "\n### Births (%d)\n\n| Lesson | Question | Answer | From |\n|---|---|---|---|\n", len(r.Births))
		for i, e := range r.Births {
			if i == listCap {
				fmt.Fprintf(&b, "| … | %d more | | |\n", len(r.Births)-listCap)
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdsafe.Code(e.ID), mdsafe.Inline(e.Question, 100), mdsafe.Inline(e.Answer, 160), mdsafe.Inline(strings.Join(capList(e.Sources, 3), ", "), 80))
		}
	}
	if len(r.Proposed) > 0 {
		b.WriteString("\n**Proposed, not added** (their authors are not trusted by the `trusted-associations` input; add them by hand with `darwin-memo add` if they are right):\n\n")
		for _, p := range r.Proposed {
			fmt.Fprintf(&b, "- %s by %s: %s — %s\n", r.prLink(p.PR), mdsafe.Inline(p.Author, 40), mdsafe.Inline(p.Question, 120), mdsafe.Inline(p.Answer, 200))
		}
	}
	return b.String()
}

func deaths(r Report) string {
	if len(r.Deaths) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Deaths (%d)\n\n", len(r.Deaths))
	for i, d := range r.Deaths {
		if i == listCap {
			fmt.Fprintf(&b, "- … %d more\n", len(r.Deaths)-listCap)
			break
		}
		cause := d.Cause
		switch d.Cause {
		case "executed":
			cause = "**executed** (measured outcomes drained it)"
		case "starved":
			cause = "starved (never earned its upkeep)"
		case "merged":
			cause = "merged into " + mdsafe.Code(d.Heir)
		}
		fmt.Fprintf(&b, "- %s %s — %s, uses %d", mdsafe.Code(d.ID), mdsafe.Inline(d.Question, 100), cause, d.Uses)
		if len(d.Lineage) > 0 {
			fmt.Fprintf(&b, ", lineage %s", codes(capList(d.Lineage, 5)))
		}
		b.WriteString("\n")
		if len(d.Notes) > 0 {
			b.WriteString("  <details><summary>obituary</summary>\n\n")
			for _, n := range d.Notes {
				b.WriteString("  - " + mdsafe.Inline(n, 200) + "\n")
			}
			b.WriteString("\n  </details>\n")
		}
	}
	return b.String()
}

func merges(r Report) string {
	if len(r.Merges) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Merges (%d)\n\n", len(r.Merges))
	// Capped as births and deaths are: a tick of a large store merges thousands of lessons,
	// and a list of them all would exceed the body budget and push the sections after it
	// (trend, survivors, footer) out of the report.
	for i, m := range r.Merges {
		if i == listCap {
			fmt.Fprintf(&b, "- … %d more\n", len(r.Merges)-listCap)
			break
		}
		fmt.Fprintf(&b, "- %s %s ← %s (energy %s)\n", mdsafe.Code(m.ID), mdsafe.Inline(m.Question, 100), codes(m.Members), fmtFloat(m.Energy))
	}
	return b.String()
}

// trend draws population (bars) and total energy (line) after each processed pull request as
// a Mermaid xychart, which GitHub renders.
func trend(r Report) string {
	pts := r.Trend
	if len(pts) < 2 {
		return ""
	}
	if len(pts) > 30 {
		pts = pts[len(pts)-30:]
	}
	var labels, pop, energy []string
	top := 1.0
	for _, p := range pts {
		labels = append(labels, strconv.Quote(p.Label))
		pop = append(pop, strconv.Itoa(p.Population))
		energy = append(energy, strconv.FormatFloat(p.Energy, 'f', 2, 64))
		top = math.Max(top, math.Max(float64(p.Population), p.Energy))
	}
	var b strings.Builder
	b.WriteString("\n### Population and energy\n\n")
	b.WriteString("Bars: living lessons; line: total energy, after each merged pull request.\n\n")
	b.WriteString("```mermaid\nxychart-beta\n")
	b.WriteString("    title \"Living lessons and total energy\"\n")
	b.WriteString("    x-axis [" + strings.Join(labels, ", ") + "]\n")
	fmt.Fprintf(&b, "    y-axis \"lessons / energy\" 0 --> %d\n", int(math.Ceil(top*1.1)))
	b.WriteString("    bar [" + strings.Join(pop, ", ") + "]\n")
	b.WriteString("    line [" + strings.Join(energy, ", ") + "]\n")
	b.WriteString("```\n")
	return b.String()
}

func survivors(r Report) string {
	var b strings.Builder
	living := len(r.Survivors) + r.MoreSurvivors
	fmt.Fprintf(&b, "\n### Survivors (%d living, tick %d)\n\n", living, r.Tick)
	if living == 0 {
		b.WriteString("No living lessons.\n")
		return b.String()
	}
	b.WriteString("| Lesson | Question | Energy | Ticks to starvation | Uses |\n|---|---|---:|---:|---:|\n")
	for i, s := range r.Survivors {
		if i == MaxSurvivors {
			break
		}
		tts := "pinned"
		if s.TicksToStarvation != nil {
			tts = strconv.FormatFloat(*s.TicksToStarvation, 'f', 1, 64)
		} else if !s.Pinned {
			tts = "–"
		}
		mark := ""
		if s.New {
			mark = " 🆕"
		}
		fmt.Fprintf(&b, "| %s%s | %s | %s | %s | %d |\n", mdsafe.Code(s.ID), mark, mdsafe.Inline(s.Question, 100), fmtFloat(s.Energy), tts, s.Uses)
	}
	if living > MaxSurvivors {
		fmt.Fprintf(&b, "| … | %d more | | | |\n", living-MaxSurvivors)
	}
	return b.String()
}

func footer(r Report) string {
	var b strings.Builder
	b.WriteString("\n---\n")
	b.WriteString("Merging this pull request commits the store; closing it discards the update (the next run rebuilds it). ")
	b.WriteString("Edits pushed to this branch are overwritten; edit the store on the base branch instead and the next run keeps your change.")
	if r.RunURL != "" {
		fmt.Fprintf(&b, " Written by [this run](%s).", r.RunURL)
	}
	b.WriteString("\n")
	return b.String()
}
