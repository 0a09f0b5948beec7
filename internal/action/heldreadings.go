package action

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/google/go-github/v62/github"

	"github.com/darwin-memo/darwin-memo-action/internal/botpr"
)

// A held reading (Record.Held, HeldBody) decides which tickets a queued pull request settles,
// whatever its body says later. The bot writes it on its own branch, and it reaches the base
// branch only when a person merges the bot pull request; but the record is a key of
// lessons.json, which any merged pull request can edit. So the readings the base branch's
// record holds are honoured only as the bot wrote them: as the head of the bot pull request
// merged last holds them (or the open bot branch, the bot's own copy). Another reading there,
// a forged one, is replaced by the bot's, or dropped when the bot wrote none: the pull request
// is then read from its body at the merge, as a pull request never queued is (its tickets are
// refused when it was updated since).

// checkHeld replaces the held readings st.rec took from the base branch's record that the bot
// did not write (see above), with a warning for each. It asks GitHub only when the base
// branch's record holds a reading: the bot pull request merged last (one request) and its
// record (one file).
func (r *Runner) checkHeld(ctx context.Context, st *state) error {
	if len(st.mainRec.Held) == 0 {
		return nil
	}
	written, where, err := r.lastBotRecord(ctx, st)
	if err != nil {
		return err
	}
	byNumber := func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return cmp.Compare(x, y) }
	for _, k := range slices.SortedFunc(maps.Keys(st.mainRec.Held), byNumber) {
		lines, hash := st.mainRec.Held[k], st.mainRec.HeldBody[k]
		if w, ok := written.Held[k]; ok && slices.Equal(w, lines) && written.HeldBody[k] == hash {
			continue
		}
		cur, ok := st.rec.Held[k]
		if !ok || !slices.Equal(cur, lines) || st.rec.HeldBody[k] != hash {
			continue // the run does not use the base branch's reading (the bot branch's won)
		}
		switch {
		case st.botRec != nil && st.botRec.Held[k] != nil:
			st.rec.keep(k, st.botRec.Held[k], st.botRec.HeldBody[k])
		case written.Held[k] != nil:
			st.rec.keep(k, written.Held[k], written.HeldBody[k])
		default:
			delete(st.rec.Held, k)
			delete(st.rec.HeldBody, k)
		}
		st.warnings = append(st.warnings, fmt.Sprintf("#%s: the held reading of its tickets in the base branch's %s is not the one the bot wrote (%s); "+
			"a merged pull request edited the record, and the bot's reading is used", k, r.Config.StorePath, where))
	}
	return nil
}

// lastBotRecord returns the record the bot wrote last to the base branch: the one at the head
// of the bot pull request merged last into it (an empty record when none was merged among the
// bot's newest closed pull requests), and where it was read, for the warning.
func (r *Runner) lastBotRecord(ctx context.Context, st *state) (Record, string, error) {
	prs, _, err := r.Client.PullRequests.List(ctx, r.Owner, r.Repo, &github.PullRequestListOptions{
		State: "closed", Head: r.Owner + ":" + r.Config.Branch, Base: st.base, Sort: "updated", Direction: "desc",
		ListOptions: github.ListOptions{PerPage: 100},
	})
	if err != nil {
		return Record{}, "", botpr.Explain(fmt.Errorf("listing the merged bot pull requests: %w", err), "pull-requests")
	}
	var last *github.PullRequest
	for _, pr := range prs {
		if pr.MergedAt != nil && r.botsOwn(pr) && (last == nil || pr.GetMergedAt().After(last.GetMergedAt().Time)) {
			last = pr
		}
	}
	if last == nil {
		return Record{Version: 1}, "no bot pull request was merged", nil
	}
	doc, _, _, err := r.readFile(ctx, r.Config.StorePath, last.GetHead().GetSHA())
	if err != nil {
		return Record{}, "", err
	}
	rec, err := ReadRecord(doc)
	if err != nil {
		return Record{}, "", fmt.Errorf("the store of the merged bot pull request #%d: %w", last.GetNumber(), err)
	}
	return rec, fmt.Sprintf("the bot pull request #%d merged last holds another", last.GetNumber()), nil
}
