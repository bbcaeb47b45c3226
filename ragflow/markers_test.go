package ragflow

import (
	"reflect"
	"testing"
)

func TestFindAllMarkersReadsBareReferences(t *testing.T) {
	cases := []struct {
		text string
		want [][]int
	}{
		{"Redis [1]. Files [2][3] and [0, 4].", [][]int{{1}, {2}, {3}, {0, 4}}},
		{"[1] leads. Mixed [ID:0] [2]", [][]int{{1}, {0}, {2}}},
		{"index a[0] and b_[1] and 中[2]", nil},
		{"a link [1](http://x) and [x] and [-1]", nil},
	}
	for _, tc := range cases {
		var got [][]int
		for _, m := range FindAllMarkers(tc.text) {
			got = append(got, m.Blocks)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FindAllMarkers(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	if FindMarkers("Redis [1].") != nil {
		t.Error("FindMarkers must keep to RAGFlow's forms")
	}
}

func TestStripMarkersStripsTheGatesReferences(t *testing.T) {
	if got := StripMarkers("Redis is the default [1][2]. See items[0] [ID:3]."); got != "Redis is the default. See items[0]." {
		t.Errorf("StripMarkers = %q", got)
	}
}
