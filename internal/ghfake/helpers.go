package ghfake

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Zip builds a deterministic zip archive (sorted names, fixed times) of
// files, the shape of a workflow-run artifact download.
func Zip(files map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			panic(err)
		}
		if _, err := w.Write(files[n]); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// EnricoMiCheckRun loads one of the real EnricoMi
// publish-unit-test-result-action check-run payloads embedded under
// testdata/checkruns/enricomi (e.g. "pytest-junit.fail.checkrun.json") as a
// CheckRun on sha, with its title, summary (digest line included) and
// annotations.
func EnricoMiCheckRun(fixture, sha string) (CheckRun, error) {
	b, err := Fixture("checkruns/enricomi/" + fixture)
	if err != nil {
		return CheckRun{}, err
	}
	var payload []struct {
		Name       string `json:"name"`
		Status     string `json:"status"`
		Conclusion string `json:"conclusion"`
		Output     struct {
			Title       string `json:"title"`
			Summary     string `json:"summary"`
			Annotations []struct {
				Path       string `json:"path"`
				StartLine  int    `json:"start_line"`
				EndLine    int    `json:"end_line"`
				Level      string `json:"annotation_level"`
				Title      string `json:"title"`
				Message    string `json:"message"`
				RawDetails string `json:"raw_details"`
			} `json:"annotations"`
		} `json:"output"`
	}
	if err := json.Unmarshal(b, &payload); err != nil || len(payload) == 0 {
		return CheckRun{}, fmt.Errorf("ghfake: %s: not a check-run list: %v", fixture, err)
	}
	p := payload[0]
	cr := CheckRun{
		Name: p.Name, HeadSHA: sha, Status: p.Status, Conclusion: p.Conclusion,
		Title: p.Output.Title, Summary: p.Output.Summary, AppSlug: "github-actions",
	}
	for _, a := range p.Output.Annotations {
		cr.Annotations = append(cr.Annotations, Annotation{
			Path: a.Path, StartLine: a.StartLine, EndLine: a.EndLine, Level: a.Level,
			Title: a.Title, Message: a.Message, RawDetails: a.RawDetails,
		})
	}
	return cr, nil
}
