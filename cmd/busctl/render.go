package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/chatbus/chatbus/client"
)

// format is how a command prints what it shows (-o).
type format string

const (
	formatTable format = ""
	formatWide  format = "wide"
	formatJSON  format = "json"
	formatYAML  format = "yaml"
	formatName  format = "name"
)

var formats = []format{formatJSON, formatYAML, formatWide, formatName}

func formatNames() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = string(f)
	}
	return out
}

// annotNames marks a command whose records have names (-o name).
const annotNames = "busctl/names"

// withNames marks cmd as printing names with -o name.
func withNames(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotNames] = "yes"
	return cmd
}

// format is the output format asked for; checkFormat has vetted it.
func (a *app) format() format {
	if a.json {
		return formatJSON
	}
	return format(a.output)
}

// checkFormat refuses, as a usage error, an unknown -o, -o that
// contradicts --json, and -o name on a command without names.
func (a *app) checkFormat(cmd *cobra.Command) error {
	f := format(a.output)
	switch {
	case f != formatTable && !slices.Contains(formats, f):
		return usagef("unknown output format %q: want %s", a.output, strings.Join(formatNames(), ", "))
	case a.json && f != formatTable && f != formatJSON:
		return usagef("--json and -o %s contradict each other", f)
	case f == formatName && cmd.Annotations[annotNames] == "":
		return usagef("%s has no names to print: -o name is for followers, bindings and providers", cmd.CommandPath())
	}
	return nil
}

// view is one thing a command shows, ready for every format.
type view struct {
	// data is the record as JSON: -o json prints it, -o yaml converts it,
	// so the two always agree.
	data func() ([]byte, error)
	// head and then table are the human form (default and -o wide);
	// table may be nil. head is one or more lines; encode ends it with a
	// newline if it has none.
	head  string
	table *table
	// names are what -o name prints, one a line.
	names []string
}

// fetchFunc asks the supervisor for what a command shows.
type fetchFunc func(ctx context.Context, c *client.Client) (*view, error)

// show is what every listing verb does: connect, fetch under --timeout,
// render.
func (a *app) show(cmd *cobra.Command, fetch fetchFunc) error {
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	v, err := fetch(ctx, c)
	if err != nil {
		return err
	}
	return a.render(v)
}

// render prints v in the format asked for.
func (a *app) render(v *view) error {
	b, err := a.encode(v)
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(b)
	return err
}

// encode is v as render prints it.
func (a *app) encode(v *view) ([]byte, error) {
	switch a.format() {
	case formatJSON:
		b, err := v.data()
		if err != nil {
			return nil, err
		}
		return append(bytes.TrimRight(b, "\n"), '\n'), nil
	case formatYAML:
		b, err := v.data()
		if err != nil {
			return nil, err
		}
		return jsonToYAML(b)
	case formatName:
		var buf bytes.Buffer
		for _, n := range v.names {
			fmt.Fprintln(&buf, n)
		}
		return buf.Bytes(), nil
	}
	var buf bytes.Buffer
	buf.WriteString(v.head)
	if v.head != "" && !strings.HasSuffix(v.head, "\n") {
		buf.WriteByte('\n')
	}
	if v.table == nil {
		return buf.Bytes(), nil
	}
	v.table.write(&buf, a.format() == formatWide, palette{on: a.color})
	return buf.Bytes(), nil
}

// protoData is m in its protojson form (proto field names, every field).
func protoData(m proto.Message) func() ([]byte, error) {
	return func() ([]byte, error) {
		return protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true, Multiline: true, Indent: "  "}.Marshal(m)
	}
}

// protoListData is ms as a JSON array of their protojson forms.
func protoListData[M proto.Message](ms []M) func() ([]byte, error) {
	return func() ([]byte, error) {
		m := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}
		var buf bytes.Buffer
		buf.WriteString("[")
		for i, x := range ms {
			if i > 0 {
				buf.WriteString(",")
			}
			b, err := m.Marshal(x)
			if err != nil {
				return nil, err
			}
			buf.WriteString("\n  ")
			buf.Write(b)
		}
		if len(ms) > 0 {
			buf.WriteString("\n")
		}
		buf.WriteString("]")
		return buf.Bytes(), nil
	}
}

// jsonData is v as indented JSON.
func jsonData(v any) func() ([]byte, error) {
	return func() ([]byte, error) { return json.MarshalIndent(v, "", "  ") }
}

// jsonToYAML is the JSON document b as YAML: the same tree, in block
// style, key order kept.
func jsonToYAML(b []byte) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("yaml from json: %w", err)
	}
	blockStyle(&n)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, fmt.Errorf("yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("yaml: %w", err)
	}
	return buf.Bytes(), nil
}

// blockStyle drops the JSON styles (flow collections, double-quoted
// strings): the encoder quotes only what would otherwise change type.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// record prints one record of a stream (an event, a restart's progress):
// a JSON line, a YAML document, or line as it is.
func (a *app) record(m proto.Message, line string) error {
	switch a.format() {
	case formatJSON, formatYAML:
		b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
		if err != nil {
			return err
		}
		if a.format() == formatYAML {
			y, err := jsonToYAML(b)
			if err != nil {
				return err
			}
			_, err = io.WriteString(a.stdout, "---\n"+string(y))
			return err
		}
		line = string(b)
	}
	_, err := io.WriteString(a.stdout, strings.TrimRight(line, "\n")+"\n")
	return err
}
