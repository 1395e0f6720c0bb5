package glue

import (
	"strings"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_batch"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

// WITNode is the generated schema-node record.
type WITNode = copycat_connector_batch.SchemaNode

// NodesToWIT converts a batch's schema nodes for the host, reusing out's
// memory.
func NodesToWIT(nodes []copycat.SchemaNode, out []WITNode) []WITNode {
	out = out[:0]
	for i := range nodes {
		n := &nodes[i]
		w := WITNode{
			Type:       uint8(n.Type),
			Optional:   n.Optional,
			Name:       witTypes.None[string](),
			Version:    witTypes.None[int32](),
			Doc:        witTypes.None[string](),
			Parameters: make([]witTypes.Tuple2[string, string], len(n.Parameters)),
			Default:    witTypes.None[[]uint8](),
			Children:   n.Children,
			FieldNames: n.FieldNames,
		}
		if n.Name != nil {
			w.Name = witTypes.Some(*n.Name)
		}
		if n.Version != nil {
			w.Version = witTypes.Some(*n.Version)
		}
		if n.Doc != nil {
			w.Doc = witTypes.Some(*n.Doc)
		}
		if n.Default != nil {
			w.Default = witTypes.Some(n.Default)
		}
		for k, p := range n.Parameters {
			w.Parameters[k] = witTypes.Tuple2[string, string]{F0: p[0], F1: p[1]}
		}
		out = append(out, w)
	}
	return out
}

// NodesFromWIT converts (copies) a batch's schema nodes from the host.
func NodesFromWIT(nodes []WITNode) []copycat.SchemaNode {
	out := make([]copycat.SchemaNode, len(nodes))
	for i := range nodes {
		w := &nodes[i]
		n := copycat.SchemaNode{Type: copycat.SchemaType(w.Type), Optional: w.Optional}
		if w.Name.IsSome() {
			s := strings.Clone(w.Name.Some())
			n.Name = &s
		}
		if w.Version.IsSome() {
			v := w.Version.Some()
			n.Version = &v
		}
		if w.Doc.IsSome() {
			s := strings.Clone(w.Doc.Some())
			n.Doc = &s
		}
		if w.Default.IsSome() {
			n.Default = append([]byte{}, w.Default.Some()...)
		}
		for _, p := range w.Parameters {
			n.Parameters = append(n.Parameters, [2]string{strings.Clone(p.F0), strings.Clone(p.F1)})
		}
		n.Children = append([]uint32(nil), w.Children...)
		for _, f := range w.FieldNames {
			n.FieldNames = append(n.FieldNames, strings.Clone(f))
		}
		out[i] = n
	}
	return out
}
