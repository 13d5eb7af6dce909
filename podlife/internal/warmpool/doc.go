// Package warmpool is the bookkeeping of podlife's warm pool (Runtime.Prewarm): which pod specs
// match (Key), which cannot be pooled and why (Poolable), the member record on disk (Member),
// and the pools themselves (Pools: a target per key, the members ready, a bound on the members
// being made). It knows nothing of how a member is made or started: package podlife does that,
// with the pod worker's own start sequence. It must not import package podlife.
package warmpool
