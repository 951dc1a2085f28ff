package springs

import "sort"

// sortSprings orders a spring set by (a, b).
func sortSprings(s *springSet) {
	sort.Sort(springOrder{s})
}

type springOrder struct{ s *springSet }

func (o springOrder) Len() int { return len(o.s.a) }
func (o springOrder) Less(i, j int) bool {
	s := o.s
	return s.a[i] < s.a[j] || s.a[i] == s.a[j] && s.b[i] < s.b[j]
}
func (o springOrder) Swap(i, j int) {
	s := o.s
	s.a[i], s.a[j] = s.a[j], s.a[i]
	s.b[i], s.b[j] = s.b[j], s.b[i]
	s.rest[i], s.rest[j] = s.rest[j], s.rest[i]
	s.k[i], s.k[j] = s.k[j], s.k[i]
	s.kind[i], s.kind[j] = s.kind[j], s.kind[i]
}
