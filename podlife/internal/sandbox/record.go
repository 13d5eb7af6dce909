package sandbox

// Record is persisted in the pod dir (sandbox.json) so that a crashed process's leftovers can be undone.
type Record struct {
	UID     string `json:"uid"`
	Network string `json:"network"` // "", "attaching", "attached"
	NetNS   string `json:"netns,omitempty"`
	IP      string `json:"ip,omitempty"`
}
