package normalizer

// score is scoreAbove with no floor: the whole share of the sentence's
// weight found in the chunk.
func (ct claimTokens) score(c chunkText) float64 { return ct.scoreAbove(&c, 0) }
