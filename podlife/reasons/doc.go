// Package reasons holds the reasons podlife reports: the Reason of an [podlife.Event], of a
// container's waiting or terminated state and of a failed pod. They are values of podlife's
// Reason type, spelled as the kubelet spells them where the kubelet has one (its
// pkg/kubelet/events holds its event reasons the same way), so that a program can switch on
// them:
//
//	for ev := range pod.Subscribe(ctx) {
//		if ev.Reason == reasons.BackOff {
//			log.Printf("%s is crash-looping: %s", ev.Container, ev.Message)
//		}
//	}
//
// The package declares constants only. It imports podlife's internal vocabulary, never package
// podlife, so that podlife's internal packages and package podlife itself can use the same
// values.
package reasons
