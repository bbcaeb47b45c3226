package policies

// SetDefaultEvaluator makes Options.Evaluator "" mean name, for TestMain
// to run the suite on either evaluator; it must be called before any
// engine is made.
func SetDefaultEvaluator(name string) { defaultEvaluator = name }
