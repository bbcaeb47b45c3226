package audit

// Verify is VerifyAnchored without published heads: the chains alone.
func Verify(inputs ...Input) (Report, error) { return VerifyAnchored(nil, inputs...) }

// Count is the number of streams that ended in state s.
func (r Report) Count(s EndState) int {
	n := 0
	for _, e := range r.Ends {
		if e.State == s {
			n++
		}
	}
	return n
}
