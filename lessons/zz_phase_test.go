package lessons
import ("testing";"time";"fmt")
func TestPhases(t *testing.T){
 data := benchStoreBytes(t, 10000)
 best := map[string]time.Duration{}
 for i := 0; i < 15; i++ {
  t0 := time.Now(); s, _ := Parse("b", data); t1 := time.Now()
  s.ensureIndex(); t2 := time.Now()
  s.ensureLexIndex(); t3 := time.Now()
  s.Decide("how do I fix the flaky retry tests in the scheduler", DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: RetrievalV2}}); t4 := time.Now()
  for k, d := range map[string]time.Duration{"parse": t1.Sub(t0), "v1idx": t2.Sub(t1), "v2idx": t3.Sub(t2), "v2q": t4.Sub(t3)} { if best[k]==0 || d < best[k] { best[k]=d } }
 }
 fmt.Println(best)
}
