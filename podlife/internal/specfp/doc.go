// Package specfp is the spec fingerprint a pod's record keeps, and the state dir's key.
//
// A pod's spec is recorded as a fingerprint per field (pod.json's specFields: see Fields), so
// that a process adopting the pod (Runtime.Adopt) can tell whether the spec it gives is the
// one the pod runs, and if not, name what differs. Only what can be serialised is compared: a
// Go hook or prober is compared by its type (its code cannot be), an exec or HTTP one by its
// fields. The spec types are named as package podlife's (podlife.EnvVar), where they were
// declared when the format was made, so that records of older managers still match.
//
// The fingerprints are keyed (HMAC-SHA256 under the state dir's key): they cover env values,
// files volumes' data and pull credentials, which must not be guessable from pod.json. The key
// is StateDir/spec.key: 32 random bytes, mode 0600, made by the first Runtime that writes a
// record there and shared by every process of the state dir (an adopter must compute the same
// fingerprints). A bare hash of a field would let whoever reads pod.json test guesses of its
// values offline: an env value or a password is often short or predictable. A salt kept in the
// record beside the hash would not stop that (the guesser has it too); a key kept apart does:
// pod.json alone (a copied pod dir, a backup without the key, a support bundle) confirms no
// guess. Records of older managers have unkeyed fingerprints (a bare SHA-256), still read.
//
// It imports podlife/internal/api (the specs), ocibuild (an OCIHook is fingerprinted as the
// option it becomes) and poddir (the key's atomic write); it must not import package podlife,
// podlife/internal/ctrd or podlife/daemon. The on-disk format is frozen: a change to what it
// hashes makes every recorded pod unadoptable.
package specfp
