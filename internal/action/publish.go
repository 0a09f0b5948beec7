package action

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
	"github.com/darwin-memo/darwin-memo-action/internal/report"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// publish writes the result: the store and its rendering as one commit on the bot branch and
// the bot pull request, or closes the bot pull request when nothing is left to merge.
func (r *Runner) publish(ctx context.Context, st *state, out *Outcome) error {
	// The record goes into the store when it holds anything, or the base branch's store has one.
	final := st.store
	rec := st.rec
	if _, mainHas := st.mainStore.Extension(RecordKey); mainHas || len(rec.Processed) > 0 || len(rec.Queued) > 0 || len(rec.Trend) > 0 {
		if err := putRecord(final, rec); err != nil {
			return fmt.Errorf("recording processed pull requests in the store: %w", err)
		}
	}
	// The bot branch carries a change when the store differs from the base branch's in anything
	// but the record. The record alone (pull requests processed without any effect on the
	// lessons, or queued behind pending CI) is no reason to open a bot pull request: it rides
	// along with the next real change, and until then those pull requests are examined again
	// (cheaply: they carry no ticket, or their tickets are refused or pending). The rendering
	// alone is no reason either: it is refreshed whenever the store changes.
	doc, same, err := final.MarshalSame(st.mainStore, RecordKey)
	if err != nil {
		return fmt.Errorf("serialising the store: %w", err)
	}
	changed := !same || st.persist
	var md []byte
	if r.Config.RenderPath != "" {
		// For agents that read Markdown at task start, labelled with the store file's name.
		opts := lessons.RenderOptions{Budget: r.Config.RenderBudget, Label: path.Base(r.Config.StorePath), Questions: true}
		if md, err = final.Render(opts); err != nil {
			return fmt.Errorf("rendering %s: %w", r.Config.RenderPath, err)
		}
	}
	files := map[string][]byte{r.Config.StorePath: doc}
	if md != nil {
		files[r.Config.RenderPath] = md
	}
	if changed {
		fb, err := r.flakyFile(ctx, st)
		if err != nil {
			return err
		}
		if fb != nil {
			files[r.flakyPath()] = fb
		}
		if err := r.checkSizes(st, files); err != nil {
			return err
		}
	}
	out.Report = r.buildReport(st, final)
	switch {
	case r.Config.DryRun:
		out.Report.DryRun = true
		r.Logf("dry run: would %s", map[bool]string{true: "update the bot pull request", false: "leave everything as it is"}[changed])
		return nil
	case !changed && st.open == nil:
		if st.closedBranch {
			// The closed bot pull request's branch holds nothing the base branch lacks now.
			if err := r.repoAPI().DeleteBranch(ctx, r.Config.Branch); err != nil {
				return err
			}
			r.Logf("deleted the branch %s: its closed pull request holds nothing the base branch lacks", r.Config.Branch)
		}
		r.Logf("nothing changed; no bot pull request")
		return nil
	case !changed:
		body := "Closed by darwin-memo: the base branch already holds everything this pull request carried."
		if err := r.repoAPI().Close(ctx, st.open.GetNumber(), r.Config.Branch, body); err != nil {
			return err
		}
		out.PRNumber, out.Operation = st.open.GetNumber(), botpr.OpClosed
		r.Logf("closed bot pull request #%d: it became empty", out.PRNumber)
		return nil
	}
	msg := fmt.Sprintf("darwin-memo: update lessons\n\n%s", commitSummary(out))
	if _, err := r.repoAPI().Commit(ctx, botpr.CommitRequest{
		Branch: r.Config.Branch, Parent: st.baseTip, Files: files, Message: msg, BranchExists: st.open != nil,
	}); err != nil {
		return err
	}
	pr, op, err := r.repoAPI().Upsert(ctx, botpr.UpsertRequest{
		Branch: r.Config.Branch, Base: st.base, Title: report.Title(out.Report), Body: report.Body(out.Report),
		Labels: r.Config.Labels, Existing: st.open,
	})
	var le *botpr.LabelError
	if errors.As(err, &le) {
		out.Report.Warnings = append(out.Report.Warnings, le.Error())
		err = nil
	}
	if err != nil {
		return err
	}
	out.PRNumber, out.Operation = pr.GetNumber(), op
	r.Logf("%s bot pull request #%d", op, out.PRNumber)
	return nil
}

func commitSummary(out *Outcome) string {
	var b strings.Builder
	for _, n := range out.Processed {
		fmt.Fprintf(&b, "processed #%d\n", n)
	}
	fmt.Fprintf(&b, "settled tickets: %d, births: %d, deaths: %d\n", out.SettledTickets, out.Births, out.Deaths)
	return b.String()
}
