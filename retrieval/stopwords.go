package retrieval

import "strings"

// stopWords are English words that carry no subject of their own, and the
// words that frame a question ("how long", "what happens"). A page is
// found by what a question is about, not by how it is asked.
var stopWords = map[string]bool{}

// cjkStopWords are the Chinese question words and particles (the same the
// loader gives Meilisearch, docs/ingest.md), longest first.
var cjkStopWords = strings.Fields(`什么 怎么 怎样 如何 哪些 多少 是否 我们 可以 的 是 了 在 和 与 吗 呢 么 请 我 你 这 那 个 有 吧`)

func init() {
	for _, w := range strings.Fields(`a about am an and any are as at be been being but by can could did do
		does doing for from had has have how i if in into is it its me my of on or our shall should so
		than that the their them then there these they this those to too was we were what when where
		which who whom whose why will with would you your
		long many much often happen happens happened make get way need want tell explain show know
		please possible`) {
		stopWords[w] = true
	}
}

func isStopWord(lower string) bool { return stopWords[lower] }

// stripCJKStopWords removes the question words and particles from a CJK
// run, leaving the rest as space-separated pieces.
func stripCJKStopWords(run string) string {
	for _, w := range cjkStopWords {
		run = strings.ReplaceAll(run, w, " ")
	}
	return strings.Join(strings.Fields(run), " ")
}
