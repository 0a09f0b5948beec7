package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Curating the lessons: add, tick, forget, pin, unpin and import.

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string { return strings.Join(*m, ",") }

func (m *multi) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("an empty label says nothing; pass e.g. pr#12 or path:src/x.go")
	}
	*m = append(*m, v)
	return nil
}

// timestampValue is --recorded-ts: an ISO-8601 (RFC 3339) time, kept as the
// store keeps timestamps, in UTC to the second (2026-06-13T12:43:53+00:00),
// so that stores compare them as strings.
type timestampValue string

func (v *timestampValue) String() string { return string(*v) }

func (v *timestampValue) Set(s string) error {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("%q is not an ISO-8601 time with a zone, e.g. 2026-06-13T12:43:53Z or 2026-06-13T14:43:53+02:00", s)
	}
	*v = timestampValue(t.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05+00:00"))
	return nil
}

// nonNegative is an int flag that refuses negative numbers.
type nonNegative int

func (v *nonNegative) String() string { return strconv.Itoa(int(*v)) }

func (v *nonNegative) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a whole number of 0 or more", s)
	}
	*v = nonNegative(n)
	return nil
}

func runAdd(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "add", "add [--store PATH] [--kind K] [--source LABEL]... [--cite PATH[#Symbol]]... [--supersedes ID]... QUESTION ANSWER")
	store := writeFlags(fs)
	kind := kindValue(lessons.KindExplicit)
	fs.Var(&kind, "kind", "lesson kind: explicit, inferred, entity, cross_doc, experience, consolidated")
	var sources multi
	fs.Var(&sources, "source", "provenance label, repeatable (e.g. pr#123, path:src/x.go)")
	var ts timestampValue
	fs.Var(&ts, "recorded-ts", "when the lesson was recorded: ISO-8601 with a zone (2026-06-13T12:43:53Z), stored in UTC to the second (default now)")
	var cites multi
	fs.Var(&cites, "cite", "file the lesson describes, repeatable: PATH or PATH#Symbol relative to the repository root (recorded as the source label path:PATH); decide and query check it still exists (docs/compat.md#citations)")
	var supersedes multi
	fs.Var(&supersedes, "supersedes", "id of a living lesson this one replaces, repeatable: it is then listed as superseded and never decides (recorded as the source label supersedes:ID)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 2 {
		return usagef("unexpected argument %q; quote the question and the answer", pos[2])
	}
	if len(pos) < 2 || strings.TrimSpace(pos[0]) == "" || strings.TrimSpace(pos[1]) == "" {
		return usagef("need a QUESTION and an ANSWER, e.g. darwin-memo add \"How do I run the tests?\" \"make test; it needs docker\"")
	}
	for _, c := range cites {
		l, err := citation.FromPath(c)
		if err != nil {
			return usagef("--cite %q: %v", c, err)
		}
		if !slices.Contains(sources, l) {
			sources = append(sources, l)
		}
	}
	lesson := lessons.NewLesson{Question: pos[0], Answer: pos[1], Kind: lessons.Kind(kind), Sources: sources, RecordedTS: string(ts)}
	if err := lesson.Validate(); err != nil { // before touching the disk
		return usagef("%v", err)
	}
	var id string
	err = mutate(ctx, sio, store, mayCreate, func(s *lessons.Store) error {
		for _, sup := range supersedes {
			if _, ok := s.Entry(sup); !ok {
				return usagef("--supersedes %q: no living lesson has that id (see darwin-memo list)", sup)
			}
			if l := lessons.SupersedesPrefix + sup; !slices.Contains(lesson.Sources, l) {
				lesson.Sources = append(lesson.Sources, l)
			}
		}
		e, err := s.Add(lesson)
		if err != nil {
			return usagef("%v", err)
		}
		id = e.ID
		return nil
	})
	if err != nil {
		return err // no id: a script must not capture one for a lesson that was not saved
	}
	fmt.Fprintln(sio.Stdout, id)
	return nil
}

func runTick(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "tick", "tick [--store PATH] [--expire-after N] [--count N]")
	store := writeFlags(fs)
	expire := fs.Int("expire-after", lessons.DefaultExpire, "close pending tickets older than N ticks at delta 0 (negative: never)")
	count := fs.Int("count", 1, "number of ticks to run")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *count < 1 {
		return usagef("--count must be at least 1")
	}
	if *expire == 0 {
		return usagef("--expire-after 0 would expire every ticket at once; use a positive number, or -1 to disable expiry")
	}
	var ticks []lessons.TickStats
	err := mutate(ctx, sio, store, mustExist, func(s *lessons.Store) error {
		if err := s.CheckBalances(); err != nil {
			return err
		}
		for i := 0; i < *count; i++ {
			if err := ctx.Err(); err != nil { // Ctrl-C: stop, and save nothing
				return fmt.Errorf("interrupted after %d of %d ticks; the store was not changed: %w", i, *count, err)
			}
			ticks = append(ticks, s.Tick(lessons.TickOptions{ExpireAfter: *expire}))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, st := range ticks {
		if err := writeJSON(sio, st); err != nil {
			return err
		}
	}
	return nil
}

// idCommand is a command that changes one lesson by id; done is what it
// prints on success.
func idCommand(name, done string, do func(s *lessons.Store, id string) error) func(context.Context, *IO, []string) error {
	return func(ctx context.Context, sio *IO, args []string) error {
		fs := newFlags(sio, name, name+" [--store PATH] ID")
		store := writeFlags(fs)
		pos, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usagef("need one entry ID (see darwin-memo top)")
		}
		if err := mutate(ctx, sio, store, mustExist, func(s *lessons.Store) error { return do(s, pos[0]) }); err != nil {
			return err
		}
		fmt.Fprintf(sio.Stdout, done+"\n", pos[0])
		return nil
	}
}

// holdingTickets names the pending tickets whose provenance holds id.
func holdingTickets(s *lessons.Store, id string) string {
	var ids []string
	for _, t := range s.Pending() {
		for _, p := range t.Provenance() {
			if p == id {
				ids = append(ids, t.ID)
				break
			}
		}
	}
	return strings.Join(ids, ", ")
}

var (
	runForget = idCommand("forget", "buried %s (darwin-memo why shows its obituary)", func(s *lessons.Store, id string) error {
		switch r := s.Forget(id); r {
		case lessons.ForgetBuried:
			return nil
		case lessons.ForgetPinned:
			return fmt.Errorf("%s is pinned; unpin it first (darwin-memo unpin %s)", id, id)
		case lessons.ForgetEscrowed:
			t := holdingTickets(s, id)
			return fmt.Errorf("%s is named by a pending ticket (%s); settle or abandon it first (darwin-memo abandon %s)", id, t, strings.SplitN(t, ",", 2)[0])
		default:
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top, or darwin-memo why %s)", id, id)
		}
	})
	runPin = idCommand("pin", "%s is pinned: it never starves or merges", func(s *lessons.Store, id string) error {
		if !s.Pin(id) {
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top)", id)
		}
		return nil
	})
	runUnpin = idCommand("unpin", "%s is unpinned: it pays upkeep again", func(s *lessons.Store, id string) error {
		if !s.Unpin(id) {
			return fmt.Errorf("%s is not a living lesson (see darwin-memo top)", id)
		}
		return nil
	})
)

func runImport(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "import", "import [--store PATH] [--probation N] [--label TEXT] SOURCE_STORE")
	store := writeFlags(fs)
	probation := nonNegative(lessons.DefaultProbation)
	fs.Var(&probation, "probation", "positive settlements an import must ride along on before it may decide (0: trusted at once)")
	label := fs.String("label", "", "imported_from label (default: SOURCE_STORE)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("need the SOURCE_STORE path to import from")
	}
	if *label != "" && strings.TrimSpace(*label) == "" {
		return usagef("--label is blank; pass a label such as acme/widgets, or leave it out to record SOURCE_STORE")
	}
	if _, err := os.Stat(pos[0]); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("SOURCE_STORE %s not found; pass the lessons.json of the store to import from; nothing was changed", pos[0])
	}
	from, err := loadStore(ctx, sio, pos[0])
	if err != nil {
		return err
	}
	var n, prob int
	err = mutate(ctx, sio, store, mayCreate, func(s *lessons.Store) error {
		lbl := *label
		if lbl == "" {
			lbl = pos[0]
		}
		prob = int(probation)
		n = len(s.Import(from, lessons.ImportOptions{Label: lbl, Probation: &prob}))
		return nil
	})
	if err != nil {
		return err // nothing printed: the import was not saved
	}
	fmt.Fprintf(sio.Stdout, "imported %d lessons from %s on probation %d\n", n, pos[0], prob)
	return nil
}
