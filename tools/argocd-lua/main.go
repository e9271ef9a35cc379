// argocd-lua: run an Argo CD resource health script (health.lua) the way Argo CD does, with gopher-lua, against
// one object. A test instrument for tests/test_argocd_health.py, built by scripts/ensure-argocd-lua.
//
// usage: argocd-lua HEALTH_LUA [OBJECT_JSON...]
//
// Each OBJECT_JSON is a file holding one Kubernetes object as JSON ("-" or none: stdin). The script runs with
// the global `obj` set to that object (JSON objects as tables, arrays as 1-based tables, null as nil) in a
// fresh state per object, and must return a table {status=..., message=...}. One JSON line per object is
// printed: {"status": ..., "message": ...} or {"error": ...}. Exit 1 when any object gave an error.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	lua "github.com/yuin/gopher-lua"
)

// The libraries open to the script: base, table, string, math, as in Argo CD's health VM (no io, no os).
var libs = []struct {
	name string
	open lua.LGFunction
}{
	{lua.BaseLibName, lua.OpenBase},
	{lua.TabLibName, lua.OpenTable},
	{lua.StringLibName, lua.OpenString},
	{lua.MathLibName, lua.OpenMath},
}

func toLua(l *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return lua.LString(x.String())
		}
		return lua.LNumber(f)
	case string:
		return lua.LString(x)
	case []any:
		t := l.NewTable()
		for _, item := range x {
			t.Append(toLua(l, item))
		}
		return t
	case map[string]any:
		t := l.NewTable()
		for k, item := range x {
			t.RawSetString(k, toLua(l, item))
		}
		return t
	}
	return lua.LString(fmt.Sprint(v))
}

func run(script string, raw []byte) map[string]any {
	var obj any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return map[string]any{"error": "object is not JSON: " + err.Error()}
	}
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range libs {
		l.Push(l.NewFunction(lib.open))
		l.Push(lua.LString(lib.name))
		l.Call(1, 0)
	}
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return map[string]any{"error": err.Error()}
	}
	ret := l.Get(-1)
	t, ok := ret.(*lua.LTable)
	if !ok {
		return map[string]any{"error": "health script returned " + ret.Type().String() + ", not a table"}
	}
	out := map[string]any{}
	for _, key := range []string{"status", "message"} {
		if s, ok := t.RawGetString(key).(lua.LString); ok {
			out[key] = string(s)
		}
	}
	return out
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: argocd-lua HEALTH_LUA [OBJECT_JSON...]")
		os.Exit(2)
	}
	script, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "argocd-lua:", err)
		os.Exit(2)
	}
	inputs := os.Args[2:]
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	failed := false
	enc := json.NewEncoder(os.Stdout)
	for _, path := range inputs {
		var raw []byte
		if path == "-" {
			raw, err = io.ReadAll(os.Stdin)
		} else {
			raw, err = os.ReadFile(path)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "argocd-lua:", err)
			os.Exit(2)
		}
		result := run(string(script), raw)
		if _, bad := result["error"]; bad {
			failed = true
		}
		if err := enc.Encode(result); err != nil {
			os.Exit(2)
		}
	}
	if failed {
		os.Exit(1)
	}
}
