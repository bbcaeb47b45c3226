package sessions

// BudgetError is the refusal of a new anonymous session (it is
// ErrAnonymousBudget to errors.Is): it carries the budget that is spent, so
// the gateway's 429 can name it (RateLimit-Policy) the way every other
// limit's does.
type BudgetError struct {
	// MaxSessions is how many anonymous sessions may live at once (across
	// every gate, with a shared store).
	MaxSessions int
}

func (e *BudgetError) Error() string { return ErrAnonymousBudget.Error() }

// Is makes errors.Is(err, ErrAnonymousBudget) hold for a BudgetError.
func (e *BudgetError) Is(target error) bool { return target == ErrAnonymousBudget }
