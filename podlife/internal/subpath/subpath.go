package subpath

import "errors"

// ErrEscapes is wrapped by the error of a volumeMount whose subPath leads out of its volume.
var ErrEscapes = errors.New("leads out of the volume")
