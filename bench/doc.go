// Package bench is the shared code of chatbus's benchmark: what
// cmd/provider-bench injects and how its control API is spoken
// ([Injection], [ProviderStats], [TelegramUpdate], [SentAt]), the bare
// gRPC baseline server measured in the same run as the supervisor
// ([NewBaselineServer], [Push], [Hold]), latency summaries ([Summarize])
// and, on Linux, /proc readings of a process's RSS and CPU time ([ReadProc]).
//
// It knows nothing of the supervisor's internals: cmd/busbench measures
// the real binaries from the outside.
package bench
