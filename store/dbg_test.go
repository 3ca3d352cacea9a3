package store

import (
	"slices"
	"time"
)

func pct(ts timings) string {
	s := slices.Clone(ts)
	slices.Sort(s)
	f := func(p float64) time.Duration { return s[int(p*float64(len(s)-1))] }
	return f(0.05).String() + " " + f(0.25).String() + " " + f(0.5).String() + " " + f(0.75).String() + " " + f(0.95).String()
}
