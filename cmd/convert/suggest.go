package main

import "strings"

// suggest returns the candidate a mistyped word most likely meant, "" when
// none is close: the one at the smallest edit distance (insertions,
// deletions, substitutions and swaps of two neighbours), if that is at most
// a third of the candidate's length plus one; else the only candidate that
// starts with the word. Ties go to the earlier candidate.
//
//	ouput  -> out      (two deletions)
//	reprot -> report   (one swap)
//	claude -> claude_code (the only one it starts)
//	bogus  -> ""       (jobs is three edits away)
func suggest(word string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(word, c)
		if d <= len(c)/3+1 && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	if best != "" || len(word) < 3 {
		return best
	}
	for _, c := range candidates {
		if strings.HasPrefix(c, word) {
			if best != "" {
				return "" // two candidates start with it: no guess
			}
			best = c
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b (bytes).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// didYouMean is " (did you mean X?)" for suggest's answer, "" for none.
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return "; did you mean " + s + "?"
	}
	return ""
}
