// Package report records the issues podlife/kube finds in a manifest document: each a
// field's path from the document's root, a message in Kubernetes' wording, and whether it is
// a warning or an error ([List]). Package kube turns them into its public kube.Issue, adding
// the document they are in.
//
// It owns the recording only, not what is reported. It imports no podlife package and no
// other package of podlife/kube; every other package of podlife/kube/internal may import it
// (TestPackageArrows checks it).
package report
