package measure

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// Stat is a distribution in milliseconds.
type Stat struct {
	Median float64 `json:"median_ms"`
	Min    float64 `json:"min_ms"`
	Max    float64 `json:"max_ms"`
}

// Summarize is the median, min and max of ds, in milliseconds rounded to 0.1.
func Summarize(ds []time.Duration) Stat {
	ms := make([]float64, len(ds))
	for i, d := range ds {
		ms[i] = math.Round(float64(d.Microseconds())/100) / 10
	}
	slices.Sort(ms)
	if len(ms) == 0 {
		return Stat{}
	}
	med := ms[len(ms)/2]
	if len(ms)%2 == 0 {
		med = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
	}
	return Stat{Median: med, Min: ms[0], Max: ms[len(ms)-1]}
}

// StatTable prints the header of a table of timings (median, min, max, ratio) and returns the
// function that prints one row; a ratio of 0 is left blank.
func StatTable(w io.Writer) func(name string, s Stat, ratio float64) {
	fmt.Fprintf(w, "%-16s %10s %10s %10s %8s\n", "", "median ms", "min ms", "max ms", "ratio")
	return func(name string, s Stat, ratio float64) {
		rs := ""
		if ratio > 0 {
			rs = fmt.Sprintf("%.2fx", ratio)
		}
		fmt.Fprintf(w, "%-16s %10.1f %10.1f %10.1f %8s\n", name, s.Median, s.Min, s.Max, rs)
	}
}

// MS is d in milliseconds, to a tenth.
func MS(d time.Duration) float64 { return float64(d.Microseconds()/100) / 10 }

// Percent is d as a percentage of one core over seconds, rounded to 0.1.
func Percent(d time.Duration, seconds float64) float64 {
	return Round1(d.Seconds() / seconds * 100)
}

// Round1 rounds v to one decimal.
func Round1(v float64) float64 { return math.Round(v*10) / 10 }

// Round2 rounds v to two decimals.
func Round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// Ratio is a over b rounded to two decimals; 0 if b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return math.Round(a/b*100) / 100
}
