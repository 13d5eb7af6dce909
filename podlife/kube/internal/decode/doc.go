// Package decode reads the documents of a Kubernetes manifest for podlife/kube: it cuts a
// manifest into documents, YAML or a stream of JSON ([Split]), measures a YAML document
// with its aliases expanded ([ExpandedYAMLSize]), converts a document to JSON and reads its
// header ([ToJSON]), and decodes it into a k8s.io/api object as the API server does with
// strict field validation, every unknown, duplicate or undecodable field an error at its
// path ([Strict]).
//
// It owns the reading of documents, not what they hold: which kinds are read and what
// becomes of their fields is package kube's and package fields'. It imports
// podlife/kube/internal/report only: no podlife package, and no other package of
// podlife/kube (TestPackageArrows checks it).
package decode
