// Package ratelimit is folded into quota: quota.Policy writes every 429's
// headers and quota.Keyed is the per-caller budget of people's feedback.
// This alias lasts only until the last callers name quota directly.
package ratelimit

import "github.com/wikigate/wikigate/quota"

// Policy is quota.Policy.
type Policy = quota.Policy
