package copycat

import (
	"fmt"
	"strconv"
	"strings"
)

// SchemaNode is one node of a flattened schema, as the WIT `schema-node`
// of wit/connector@0.3.0/batch.wit: a batch carries its schemas as a list
// of nodes, each after the nodes it refers to. The SDK converts between
// nodes and [Schema]s; connectors rarely see them.
type SchemaNode struct {
	Type       SchemaType
	Optional   bool
	Name       *string
	Version    *int32
	Doc        *string
	Parameters [][2]string
	// Default is the default value's encoding under this node; nil for
	// none.
	Default []byte
	// Children: an array's element, a map's key then value, a struct's
	// fields; indexes of earlier nodes.
	Children []uint32
	// FieldNames: a struct's field names, one per child.
	FieldNames []string
}

// SchemaTable flattens schemas into nodes, sharing the nodes of schemas
// added before (by pointer, then by content). The zero value is empty.
type SchemaTable struct {
	nodes []SchemaNode
	byPtr map[*Schema]int32
	byKey map[string]int32
}

// Add returns the index of schema's root node, adding its nodes if needed.
func (t *SchemaTable) Add(schema *Schema) (int32, error) {
	return t.add(schema, 0)
}

func (t *SchemaTable) add(s *Schema, depth int) (int32, error) {
	if i, ok := t.byPtr[s]; ok {
		return i, nil
	}
	if s == nil {
		return 0, fmt.Errorf("nil schema")
	}
	if depth > MaxDepth {
		return 0, fmt.Errorf("schema nested deeper than %d", MaxDepth)
	}
	n := SchemaNode{Type: s.Type, Optional: s.Optional, Version: s.Version, Parameters: s.Parameters}
	if s.Name != "" {
		n.Name = &s.Name
	}
	if s.Doc != "" {
		n.Doc = &s.Doc
	}
	child := func(c *Schema, what string) error {
		if c == nil {
			return fmt.Errorf("a %s schema without its %s schema", s.Type, what)
		}
		i, err := t.add(c, depth+1)
		n.Children = append(n.Children, uint32(i))
		return err
	}
	var err error
	switch s.Type {
	case SchemaArray:
		err = child(s.Value, "element")
	case SchemaMap:
		if err = child(s.Key, "key"); err == nil {
			err = child(s.Value, "value")
		}
	case SchemaStruct:
		for _, f := range s.Fields {
			if err = child(f.Schema, "field "+f.Name); err != nil {
				break
			}
			n.FieldNames = append(n.FieldNames, f.Name)
		}
	}
	if err != nil {
		return 0, err
	}
	if s.Default != nil {
		if n.Default, err = Encode(s, s.Default, nil); err != nil {
			return 0, fmt.Errorf("the default of %s: %w", s, err)
		}
	}
	key := n.key()
	i, ok := t.byKey[key]
	if !ok {
		i = int32(len(t.nodes))
		t.nodes = append(t.nodes, n)
		if t.byKey == nil {
			t.byKey = map[string]int32{}
		}
		t.byKey[key] = i
	}
	if t.byPtr == nil {
		t.byPtr = map[*Schema]int32{}
	}
	t.byPtr[s] = i
	return i, nil
}

func (n *SchemaNode) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%t|", n.Type, n.Optional)
	if n.Name != nil {
		b.WriteString(strconv.Quote(*n.Name))
	}
	b.WriteByte('|')
	if n.Version != nil {
		b.WriteString(strconv.Itoa(int(*n.Version)))
	}
	b.WriteByte('|')
	if n.Doc != nil {
		b.WriteString(strconv.Quote(*n.Doc))
	}
	fmt.Fprintf(&b, "|%q|%q|%v|%q", n.Parameters, n.Default, n.Children, n.FieldNames)
	if n.Default == nil {
		b.WriteString("|-")
	}
	return b.String()
}

// Nodes returns the nodes, each after its children.
func (t *SchemaTable) Nodes() []SchemaNode { return t.nodes }

// Len returns the number of nodes.
func (t *SchemaTable) Len() int { return len(t.nodes) }

// Reset empties the table, keeping what it learnt of schemas by pointer
// out (their nodes are added again on first use).
func (t *SchemaTable) Reset() {
	t.nodes = t.nodes[:0]
	clear(t.byPtr)
	clear(t.byKey)
}

// ReadSchemas rebuilds the schemas of a batch's nodes: one [Schema] per
// node, sharing the schemas of shared nodes.
func ReadSchemas(nodes []SchemaNode) ([]*Schema, error) {
	out := make([]*Schema, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		s := &Schema{Type: n.Type, Optional: n.Optional, Version: n.Version, Parameters: n.Parameters}
		if n.Type > SchemaStruct {
			return nil, fmt.Errorf("schema node %d: type %d", i, n.Type)
		}
		if n.Name != nil {
			s.Name = *n.Name
		}
		if n.Doc != nil {
			s.Doc = *n.Doc
		}
		child := func(k int) (*Schema, error) {
			if k >= len(n.Children) || int(n.Children[k]) >= i {
				return nil, fmt.Errorf("schema node %d (%s): child %d missing or not an earlier node", i, n.Type, k)
			}
			return out[n.Children[k]], nil
		}
		var err error
		switch n.Type {
		case SchemaArray:
			s.Value, err = child(0)
		case SchemaMap:
			if s.Key, err = child(0); err == nil {
				s.Value, err = child(1)
			}
		case SchemaStruct:
			if len(n.FieldNames) != len(n.Children) {
				return nil, fmt.Errorf("schema node %d: %d field names for %d children", i, len(n.FieldNames), len(n.Children))
			}
			s.Fields = make([]Field, len(n.Children))
			for k := range n.Children {
				s.Fields[k].Name = n.FieldNames[k]
				if s.Fields[k].Schema, err = child(k); err != nil {
					break
				}
			}
		}
		if err != nil {
			return nil, err
		}
		if n.Default != nil {
			if s.Default, err = Decode(s, n.Default); err != nil {
				return nil, fmt.Errorf("schema node %d: default: %w", i, err)
			}
		}
		out[i] = s
	}
	return out, nil
}

// Seed starts the table with the nodes of a batch that was read and the
// schemas [ReadSchemas] made of them: adding one of those schemas again
// yields its node, so a transform returns the schema table it was given.
func (t *SchemaTable) Seed(nodes []SchemaNode, schemas []*Schema) {
	t.Reset()
	if t.byPtr == nil {
		t.byPtr = map[*Schema]int32{}
		t.byKey = map[string]int32{}
	}
	t.nodes = append(t.nodes, nodes...)
	for i := range nodes {
		t.byKey[nodes[i].key()] = int32(i)
		if i < len(schemas) {
			t.byPtr[schemas[i]] = int32(i)
		}
	}
}

// Truncate forgets every node from n on (undoing later [SchemaTable.Add]s).
func (t *SchemaTable) Truncate(n int) {
	if n >= len(t.nodes) {
		return
	}
	t.nodes = t.nodes[:n]
	for s, i := range t.byPtr {
		if int(i) >= n {
			delete(t.byPtr, s)
		}
	}
	for k, i := range t.byKey {
		if int(i) >= n {
			delete(t.byKey, k)
		}
	}
}
