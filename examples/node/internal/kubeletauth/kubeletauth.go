package kubeletauth

import (
	"context"
	"fmt"

	"github.com/virtual-kubelet/virtual-kubelet/node/nodeutil"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
)

// New returns the kubelet API's authentication and authorization, those of a kubelet
// run with --anonymous-auth=false --client-ca-file=clientCA --authentication-token-webhook
// --authorization-mode=Webhook (virtual-kubelet's nodeutil.WebhookAuth, on k8s.io/apiserver's
// delegating authenticator and authorizer):
//
//   - a client certificate that chains to clientCA authenticates its CN as the user and its O
//     as the groups; a bearer token is reviewed by the API server (TokenReview); a request
//     with neither is refused (401): there is no anonymous user;
//   - each request is then authorized by the API server (SubjectAccessReview) as the verb of
//     its HTTP method on the subresource of nodes/NAME the kubelet maps its path to (stats,
//     metrics, log, else proxy: exec, attach, port-forward, containerLogs, pods), and refused
//     (403) unless allowed;
//   - answers are cached as the kubelet's defaults do: tokens 2 minutes, allowed 5 minutes,
//     denied 30 seconds.
//
// clientCA is reloaded when the file changes, until ctx ends.
func New(ctx context.Context, client kubernetes.Interface, nodeName, clientCA string) (nodeutil.Auth, error) {
	ca, err := dynamiccertificates.NewDynamicCAContentFromFile("client-ca", clientCA)
	if err != nil {
		return nil, fmt.Errorf("--client-ca: %w", err)
	}
	go ca.Run(ctx, 1)
	auth, err := nodeutil.WebhookAuth(client, nodeName, func(c *nodeutil.WebhookAuthConfig) error {
		c.AuthnConfig.ClientCertificateCAContentProvider = ca
		c.AuthnConfig.Anonymous = nil // no anonymous requests
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("kubelet API auth: %w", err)
	}
	return auth, nil
}
