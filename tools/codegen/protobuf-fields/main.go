// Command protobuf-fields writes, as JSON, the protobuf field table of every kind client-go's
// scheme knows: for each message its fields in Go struct order (the order encoding/json writes
// them), with the protobuf field number and wire encoding from the `protobuf` struct tag and the
// JSON name and options from the `json` tag. @k/clientset's protobuf decoder is generated from it.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes/scheme"
)

// Field is one struct field. Type is a scalar ("string", "bool", "int32", "int64", "uint32",
// "uint64", "double", "float", "bytes"), a special type ("time", "microtime",
// "quantity", "intorstring", "rawextension", "fieldsv1", "objectmeta", "listmeta") or "message"
// with Message naming it.
type Field struct {
	JSON     string `json:"json"`
	Number   int    `json:"number"`
	Type     string `json:"type"`
	Message  string `json:"message,omitempty"`
	Repeated bool   `json:"repeated,omitempty"`
	// Map values are described by Value; keys are always strings in the Kubernetes API.
	Map       bool   `json:"map,omitempty"`
	Value     *Field `json:"value,omitempty"`
	Pointer   bool   `json:"pointer,omitempty"`
	OmitEmpty bool   `json:"omitempty,omitempty"`
	OmitZero  bool   `json:"omitzero,omitempty"`
	Inline    bool   `json:"inline,omitempty"`
}

// Table is the output: kinds by "apiVersion kind", messages by Go type name.
type Table struct {
	Kinds    map[string]string   `json:"kinds"`
	Messages map[string][]*Field `json:"messages"`
}

var special = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "microtime",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "intorstring",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    "rawextension",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "fieldsv1",
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta": "objectmeta",
	"k8s.io/apimachinery/pkg/apis/meta/v1.ListMeta":   "listmeta",
}

var marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

type generator struct {
	table    Table
	problems []string
}

func typeName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

func (g *generator) message(t reflect.Type) string {
	name := typeName(t)
	if _, done := g.table.Messages[name]; done {
		return name
	}
	g.table.Messages[name] = nil // reserve: recursive types
	fields := []*Field{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		jsonTag, hasJSON := sf.Tag.Lookup("json")
		jsonParts := strings.Split(jsonTag, ",")
		if jsonParts[0] == "-" || (!hasJSON && !sf.Anonymous) {
			continue
		}
		protoTag := sf.Tag.Get("protobuf")
		if protoTag == "" {
			if sf.Anonymous && typeName(sf.Type) == "k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta" {
				continue // apiVersion and kind come from the protobuf envelope
			}
			g.problems = append(g.problems, fmt.Sprintf("%s.%s has no protobuf tag", name, sf.Name))
			continue
		}
		protoParts := strings.Split(protoTag, ",")
		number, err := strconv.Atoi(protoParts[1])
		if err != nil {
			g.problems = append(g.problems, fmt.Sprintf("%s.%s: bad protobuf tag %q", name, sf.Name, protoTag))
			continue
		}
		field := g.describe(name+"."+sf.Name, sf.Type, protoParts[0])
		field.JSON = jsonParts[0]
		field.Number = number
		for _, option := range jsonParts[1:] {
			switch option {
			case "omitempty":
				field.OmitEmpty = true
			case "omitzero":
				field.OmitZero = true
			case "inline":
				field.Inline = true
			case "":
			default:
				g.problems = append(g.problems, fmt.Sprintf("%s.%s: json option %q", name, sf.Name, option))
			}
		}
		if sf.Anonymous && field.JSON == "" {
			field.Inline = true // encoding/json promotes an untagged embedded struct's fields
		}
		if field.JSON == "" && !field.Inline {
			g.problems = append(g.problems, fmt.Sprintf("%s.%s: no JSON name", name, sf.Name))
		}
		fields = append(fields, field)
	}
	g.table.Messages[name] = fields
	return name
}

// describe gives the field's type; encoding is the protobuf tag's wire encoding.
func (g *generator) describe(where string, t reflect.Type, encoding string) *Field {
	field := &Field{}
	if t.Kind() == reflect.Pointer {
		field.Pointer = true
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		field.Repeated = true
		t = t.Elem()
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	if t.Kind() == reflect.Map {
		field.Map = true
		if t.Key().Kind() != reflect.String {
			g.problems = append(g.problems, where+": map key is not a string")
		}
		value := t.Elem()
		if value.Kind() == reflect.Slice && value.Elem().Kind() != reflect.Uint8 {
			// A named slice as a map value is a message of one repeated field `items` (ExtraValue).
			item := g.describe(where+"[value]", value.Elem(), "")
			item.Repeated = true
			item.Number = 1
			item.JSON = "items"
			wrapper := "wrapper:" + typeName(value)
			g.table.Messages[wrapper] = []*Field{item}
			field.Value = &Field{Type: "message", Message: wrapper, Number: 2}
		} else {
			field.Value = g.describe(where+"[value]", value, "")
			field.Value.Number = 2
		}
		field.Type = "map"
		return field
	}
	if name, ok := special[typeName(t)]; ok && t.Kind() == reflect.Struct {
		field.Type = name
		return field
	}
	if t.Kind() == reflect.Struct {
		if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
			g.problems = append(g.problems, fmt.Sprintf("%s: %s has its own JSON encoding", where, typeName(t)))
		}
		field.Type = "message"
		field.Message = g.message(t)
		return field
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		g.problems = append(g.problems, fmt.Sprintf("%s: %s has its own JSON encoding", where, typeName(t)))
	}
	switch t.Kind() {
	case reflect.String:
		field.Type = "string"
	case reflect.Bool:
		field.Type = "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		field.Type = "int32"
	case reflect.Int64:
		field.Type = "int64"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		field.Type = "uint32"
	case reflect.Uint64:
		field.Type = "uint64"
	case reflect.Float64:
		field.Type = "double"
	case reflect.Float32:
		field.Type = "float"
	case reflect.Slice:
		field.Type = "bytes"
	default:
		g.problems = append(g.problems, fmt.Sprintf("%s: unsupported kind %s", where, t.Kind()))
		field.Type = "unsupported"
	}
	if encoding != "" && encoding != "bytes" && encoding != "varint" && encoding != "fixed64" && encoding != "fixed32" {
		g.problems = append(g.problems, fmt.Sprintf("%s: wire encoding %s", where, encoding))
	}
	if (encoding == "fixed64") != (field.Type == "double") && encoding != "" {
		g.problems = append(g.problems, fmt.Sprintf("%s: %s encoded as %s", where, field.Type, encoding))
	}
	return field
}

func main() {
	g := &generator{table: Table{Kinds: map[string]string{}, Messages: map[string][]*Field{}}}
	known := scheme.Scheme.AllKnownTypes()
	gvks := make([]string, 0, len(known))
	for gvk, t := range known {
		if gvk.Version == "__internal" || t.Kind() != reflect.Struct {
			continue
		}
		if _, ok := t.FieldByName("ObjectMeta"); !ok {
			if _, ok := t.FieldByName("ListMeta"); !ok {
				continue // options and events of the API machinery, not objects a client reads
			}
		}
		gvks = append(gvks, gvk.GroupVersion().String()+" "+gvk.Kind)
		g.table.Kinds[gvk.GroupVersion().String()+" "+gvk.Kind] = g.message(t)
	}
	sort.Strings(gvks)
	if len(g.problems) > 0 {
		sort.Strings(g.problems)
		for _, problem := range g.problems {
			fmt.Fprintln(os.Stderr, problem)
		}
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", " ")
	if err := encoder.Encode(g.table); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d kinds, %d messages, %d problems\n", len(gvks), len(g.table.Messages), len(g.problems))
}
