package sessions

// Marshal is a session's stored form (compressed, see encodeSession), for
// stores outside this package: a shared store keeps the same bytes the
// embedded one does, so its memory per session is the same.
func Marshal(s *Session) ([]byte, error) { return encodeSession(s) }

// Unmarshal reads what Marshal wrote.
func Unmarshal(data []byte) (*Session, error) { return decodeSession(data) }

// ValidID reports whether id has the shape New mints, so a store never
// turns arbitrary path input into a key.
func ValidID(id string) bool { return validID(id) }
