package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// Reading the store: stats, top, why, obituary, render and doctor.

func runStats(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "stats", "stats [--store PATH] [--json]")
	store := storeFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadStore(ctx, sio, *store)
	if err != nil {
		return err
	}
	total, damaged, pinned, probation := 0.0, 0, 0, 0
	for _, e := range s.Living() {
		total += e.Energy
		if s.Damaged(e.ID) {
			damaged++
		}
		if e.Pinned {
			pinned++
		}
		if e.Probation > 0 {
			probation++
		}
	}
	pend := []string{}
	for _, t := range s.Pending() {
		pend = append(pend, t.ID)
	}
	out := struct {
		Store       string    `json:"store"`
		Living      int       `json:"living"`
		Dead        int       `json:"dead"`
		Tick        int       `json:"tick"`
		Pending     int       `json:"pending"`
		PendingIDs  []string  `json:"pending_ids"`
		TotalEnergy jsonFloat `json:"total_energy"`
		Pinned      int       `json:"pinned"`
		Probation   int       `json:"probation"`
		Damaged     int       `json:"damaged_living"`
		Warnings    []string  `json:"warnings"`
	}{*store, len(s.Living()), len(s.Graveyard()), s.TickCount(), len(pend), pend, jsonFloat(math.Round(total*1000) / 1000), pinned, probation, damaged, s.Warnings()}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	if *asJSON {
		return writeJSON(sio, out)
	}
	fmt.Fprintf(sio.Stdout, "%s: %d living, %d dead, tick %d, %d pending, total energy %.3f\n", *store, out.Living, out.Dead, out.Tick, out.Pending, float64(out.TotalEnergy))
	for _, w := range out.Warnings {
		fmt.Fprintf(sio.Stdout, "warning: %s\n", w)
	}
	return nil
}

func runTop(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "top", "top [--store PATH] [-n N] [--json]")
	store := storeFlag(fs)
	n := fs.Int("n", 10, "how many lessons")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 0 {
		return usagef("-n %d: pass how many lessons to list (0 or more)", *n)
	}
	s, err := loadStore(ctx, sio, *store)
	if err != nil {
		return err
	}
	living := slices.Clone(s.Living())
	slices.SortFunc(living, func(a, b *lessons.Entry) int {
		if c := cmp.Compare(b.Energy, a.Energy); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	living = living[:min(*n, len(living))]
	type row struct {
		ID       string     `json:"id"`
		Energy   jsonFloat  `json:"energy"`
		Uses     int        `json:"uses"`
		Runway   *jsonFloat `json:"ticks_to_starvation"`
		Pinned   bool       `json:"pinned"`
		Question string     `json:"question"`
	}
	rows := []row{}
	for _, e := range living {
		r := row{ID: e.ID, Energy: jsonFloat(e.Energy), Uses: e.Uses, Pinned: e.Pinned, Question: e.Question}
		if t := s.TicksToStarvation(e); t != nil {
			v := jsonFloat(*t)
			r.Runway = &v
		}
		rows = append(rows, r)
	}
	if *asJSON {
		return writeJSON(sio, rows)
	}
	for _, r := range rows {
		runway := "pinned"
		if r.Runway != nil {
			runway = fmt.Sprintf("%.1f ticks", float64(*r.Runway))
		}
		fmt.Fprintf(sio.Stdout, "%s  %6.3f  uses %-3d  runway %-12s %s\n", r.ID, float64(r.Energy), r.Uses, runway, termSafe(r.Question))
	}
	return nil
}

func runWhy(ctx context.Context, sio *IO, args []string) error {
	return lifeStory(ctx, sio, "why", args)
}

func runObituary(ctx context.Context, sio *IO, args []string) error {
	return lifeStory(ctx, sio, "obituary", args)
}

// lifeStory is why and obituary: one lesson's life, exit 1 for an id the
// store never knew.
func lifeStory(ctx context.Context, sio *IO, name string, args []string) error {
	fs := newFlags(sio, name, name+" [--store PATH] ID")
	store := storeFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("need one entry ID (see darwin-memo top)")
	}
	s, err := loadStore(ctx, sio, *store)
	if err != nil {
		return err
	}
	story := s.Obituary(pos[0])
	_, living := s.Entry(pos[0])
	_, dead := s.Dead(pos[0])
	if !living && !dead && !strings.Contains(story, ": merged into ") {
		return fmt.Errorf("%s is unknown to this store (see darwin-memo top for living ids, darwin-memo stats --json for the rest)", pos[0])
	}
	fmt.Fprintln(sio.Stdout, story)
	if chain := s.SupersessionChain(pos[0]); living && len(chain) > 1 {
		// Recorded supersession: this lesson no longer decides.
		fmt.Fprintf(sio.Stdout, "superseded: %s\n", strings.Join(chain, " -> "))
	}
	return nil
}

func runRender(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "render", "render [--store PATH] [-o FILE] [--budget 25kb] [--max-lines 200] [--answers-only]")
	store := storeFlag(fs)
	outPath := fs.String("o", "", "output file, - for stdout (default: LESSONS.md next to the store, where the action's render input writes it)")
	budgetS := fs.String("budget", "25kb", "hard byte budget (b, kb, mb)")
	maxLines := fs.Int("max-lines", 200, "hard line cap")
	answersOnly := fs.Bool("answers-only", false, "darwin-memo's format: each lesson's answer without its question, and no note about tickets")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	budget, err := lessons.ParseBudget(*budgetS)
	if err != nil {
		return usagef("%v", err)
	}
	if *maxLines < 1 {
		return usagef("--max-lines must be at least 1")
	}
	if *outPath == "" {
		*outPath = filepath.Join(filepath.Dir(*store), "LESSONS.md")
	}
	if err := checkRenderTarget(*store, *outPath); err != nil {
		return err
	}
	var doc []byte
	s, err := lessons.LoadWith(ctx, *store, opts(sio))
	switch {
	case errors.Is(err, os.ErrNotExist):
		// Like every command but the agents' decide and query: a missing store is an error,
		// and nothing is written (no LESSONS.md in a repository that has no lessons).
		return fmt.Errorf("store %s not found; nothing was rendered (check --store)", *store)
	case err != nil && *outPath == "-":
		return fmt.Errorf("%w\nnothing was rendered", explainLoad(err))
	case err != nil:
		return fmt.Errorf("%w\n%s was left untouched", explainLoad(err), *outPath)
	default:
		doc, err = s.Render(lessons.RenderOptions{Budget: budget, MaxLines: *maxLines, Label: filepath.Base(*store), Questions: !*answersOnly})
		if errors.Is(err, lessons.ErrBudgetTooSmall) {
			return usagef("%v; raise --budget", err)
		}
		if err != nil {
			return err
		}
	}
	if *outPath == "-" {
		_, err := sio.Stdout.Write(doc)
		return err
	}
	if err := storedoc.WriteFileAtomic(*outPath, doc, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(sio.Stdout, "rendered %s: %d bytes, %d lines\n", *outPath, len(doc), bytes.Count(doc, []byte("\n")))
	return nil
}

// checkRenderTarget refuses an output path that render must not replace: the
// store itself (also through a link or another spelling of its path), its
// lock sidecar, its event log, or a directory.
func checkRenderTarget(store, out string) error {
	if out == "-" {
		return nil
	}
	for _, side := range []struct{ path, what string }{
		{store, "the store itself"},
		{store + ".lock", "the store's lock file"},
		{storedoc.EventsPath(store), "the store's event log"},
	} {
		if samePath(out, side.path) {
			return usagef("-o %s is %s (%s); render never writes the store or its side files: pass another file, or -o - for stdout", out, side.what, side.path)
		}
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return usagef("-o %s is a directory; name the file to write, e.g. -o %s", out, filepath.Join(out, "LESSONS.md"))
	}
	return nil
}

// samePath reports whether a and b name the same file: os.SameFile when
// both exist, else the same absolute path once the directories' links are
// resolved.
func samePath(a, b string) bool {
	ai, aerr := os.Stat(a)
	bi, berr := os.Stat(b)
	if aerr == nil && berr == nil {
		return os.SameFile(ai, bi)
	}
	return resolvedPath(a) == resolvedPath(b)
}

// resolvedPath is p made absolute, with the links of its directory (and of p
// itself, when it is a link to an existing file) resolved.
func resolvedPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

func runDoctor(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "doctor", "doctor [--store PATH] [--json]")
	store := storeFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadStore(ctx, sio, *store)
	if err != nil {
		return err
	}
	events, err := storedoc.ReadEvents(storedoc.EventsPath(*store))
	if err != nil {
		return err
	}
	d := s.Doctor(events)
	d.Findings = append(d.Findings, citationFindings(s, *store)...)
	if *asJSON {
		if err := writeJSON(sio, d); err != nil {
			return err
		}
	} else if len(d.Findings) == 0 && !d.Diagnosed {
		fmt.Fprintln(sio.Stdout, "no evidence yet: nothing has been settled, ticked or buried.")
		fmt.Fprintln(sio.Stdout, "agents: run darwin-memo decide \"<task>\" and paste the ticket line into the PR body;")
		fmt.Fprintln(sio.Stdout, "CI: run the darwin-memo action on merged PRs so tickets settle with measured deltas.")
	} else if len(d.Findings) == 0 {
		w := d.EvidenceWindow
		fmt.Fprintf(sio.Stdout, "healthy: %d events, %d ticks, %d settles, %d alive, %d graves\n", w.Events, w.Ticks, w.Settles, w.Alive, w.Graves)
	} else {
		for _, f := range d.Findings {
			fmt.Fprintf(sio.Stdout, "%s %s: %s\n  fix: %s\n", f.Severity, f.Code, f.Summary, f.Fix)
		}
	}
	if d.HasErrors() {
		return errSilentExit
	}
	return nil
}
