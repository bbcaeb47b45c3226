package identity

// wait returns once no write is under way (tests, before their directory
// is removed).
func (u *keyUsage) wait() { u.writes.Wait() }
