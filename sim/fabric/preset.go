package fabric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/strainlimit"
)

// Preset is a fabric from published measurements: the cloth parameters
// and strain limits it sets, with its source. Presets are data files,
// assets/materials/NAME.json, read by Builtin.
type Preset struct {
	Name   string `json:"name"`   // the file's name without .json; what a scene's "material" names
	Title  string `json:"title"`  // one line: what the fabric is, its use and fibres
	Source string `json:"source"` // the citation of the measurements
	URL    string `json:"url"`    // where the source's data can be found

	// Params and Strain are the keys the preset sets, in the scene
	// file's "params" (cloth.ParamTable) and "strain" (strainlimit.Table)
	// blocks. Params may only name the material keys (PresetParamKeys),
	// Strain only the limits (PresetStrainKeys).
	Params json.RawMessage `json:"params"`
	Strain json.RawMessage `json:"strain,omitempty"`

	// BendWarp and BendWeft are the source's bending stiffness per
	// direction, N·m: drape's bending is isotropic, so Params holds one
	// k_b and the cantilever test reports the error per direction.
	BendWarp float64 `json:"bending_warp"`
	BendWeft float64 `json:"bending_weft"`

	// DC is a published drape coefficient of the same fabric, or nil when
	// no source gives one.
	DC *PublishedDC `json:"drape_coefficient,omitempty"`

	// Measured holds the source's numbers in its own model and units,
	// and Conversion says how they became Params and Strain.
	Measured   json.RawMessage `json:"measured"`
	Conversion []string        `json:"conversion"`

	paramKeys, strainKeys []string
}

// PublishedDC is a drape coefficient from the literature.
type PublishedDC struct {
	Value  float64 `json:"value"`
	Source string  `json:"source"`
}

// PresetParamKeys are the cloth.ParamTable keys a preset may set: the
// material, not the solver, damping or scene forces.
var PresetParamKeys = []string{"E_x", "E_y", "E_s", "nu_xy", "nu_yx", "density", "bending"}

// PresetStrainKeys are the strainlimit.Table keys a preset may set.
var PresetStrainKeys = []string{"enabled", "max_weft", "max_warp", "max_shear"}

// ParamKeys returns the "params" keys the preset sets, in file order.
func (p *Preset) ParamKeys() []string { return p.paramKeys }

// StrainKeys returns the "strain" keys the preset sets, in file order.
func (p *Preset) StrainKeys() []string { return p.strainKeys }

// Apply sets every key the preset names in params and strain and leaves
// the others as they are.
func (p *Preset) Apply(params *cloth.Params, strain *strainlimit.Params) {
	// The blocks were checked by ParsePreset; decoding cannot fail.
	if err := cloth.ParamTable.Decode(p.Params, params); err != nil {
		panic(err)
	}
	if p.Strain != nil {
		if err := strainlimit.Table.Decode(p.Strain, strain); err != nil {
			panic(err)
		}
	}
}

// Values returns cloth.DefaultParams and strainlimit.DefaultParams with
// the preset applied.
func (p *Preset) Values() (cloth.Params, strainlimit.Params) {
	params, strain := cloth.DefaultParams(), strainlimit.DefaultParams()
	p.Apply(&params, &strain)
	return params, strain
}

// objectKeys returns the keys of a JSON object in order.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// ParsePreset decodes and checks a preset file: known keys only, a name
// equal to name, a source, params that name only PresetParamKeys and
// strain only PresetStrainKeys, and values that, applied over the
// defaults, pass cloth.Params.Validate and strainlimit.Params.Validate.
func ParsePreset(data []byte, name string) (*Preset, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Preset
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("material %s: %w", name, err)
	}
	fail := func(format string, a ...any) (*Preset, error) {
		return nil, fmt.Errorf("material %s: "+format, append([]any{name}, a...)...)
	}
	switch {
	case p.Name != name:
		return fail("\"name\" is %q; it must be the file's name", p.Name)
	case strings.TrimSpace(p.Source) == "":
		return fail("\"source\" is missing: every preset cites its measurements")
	case p.Params == nil:
		return fail("\"params\" is missing")
	}
	var err error
	if p.paramKeys, err = objectKeys(p.Params); err != nil {
		return fail("params: %v", err)
	}
	for _, k := range p.paramKeys {
		if !slices.Contains(PresetParamKeys, k) {
			return fail("params: %q is not a material key (a preset may set %s)", k, strings.Join(PresetParamKeys, ", "))
		}
	}
	if p.Strain != nil {
		if p.strainKeys, err = objectKeys(p.Strain); err != nil {
			return fail("strain: %v", err)
		}
		for _, k := range p.strainKeys {
			if !slices.Contains(PresetStrainKeys, k) {
				return fail("strain: %q is not a limit key (a preset may set %s)", k, strings.Join(PresetStrainKeys, ", "))
			}
		}
	}
	params, strain := cloth.DefaultParams(), strainlimit.DefaultParams()
	if err := cloth.ParamTable.Decode(p.Params, &params); err != nil {
		return fail("params: %v", err)
	}
	if p.Strain != nil {
		if err := strainlimit.Table.Decode(p.Strain, &strain); err != nil {
			return fail("strain: %v", err)
		}
	}
	if err := params.Validate(); err != nil {
		return fail("params: %v", err)
	}
	if err := strain.Validate(); err != nil {
		return fail("strain: %v", err)
	}
	return &p, nil
}

// Library is a set of presets by name.
type Library struct {
	presets map[string]*Preset
	names   []string
}

// LoadLibrary reads every dir/*.json of fsys as a preset.
func LoadLibrary(fsys fs.FS, dir string) (*Library, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	lib := &Library{presets: map[string]*Preset{}}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(path.Base(f), ".json")
		p, err := ParsePreset(data, name)
		if err != nil {
			return nil, err
		}
		lib.presets[name] = p
		lib.names = append(lib.names, name)
	}
	sort.Strings(lib.names)
	return lib, nil
}

// Names returns the presets' names, sorted.
func (l *Library) Names() []string { return slices.Clone(l.names) }

// ErrUnknown is wrapped by the error Lookup returns for a name that is
// not a preset.
var ErrUnknown = errors.New("unknown material")

// Lookup returns the named preset, or an error wrapping ErrUnknown that
// lists the presets.
func (l *Library) Lookup(name string) (*Preset, error) {
	if p, ok := l.presets[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w %q (the presets are %s)", ErrUnknown, name, strings.Join(l.names, ", "))
}

var builtin struct {
	once sync.Once
	lib  *Library
	err  error
}

// Builtin returns the presets shipped in the program, assets/materials
// (assets.Materials), read once. A preset file that does not parse is a
// programming error that TestBuiltin catches; Builtin then returns it.
func Builtin() (*Library, error) {
	builtin.once.Do(func() {
		builtin.lib, builtin.err = LoadLibrary(assets.Materials, "materials")
	})
	return builtin.lib, builtin.err
}

// Lookup returns the built-in preset name (Builtin().Lookup).
func Lookup(name string) (*Preset, error) {
	lib, err := Builtin()
	if err != nil {
		return nil, err
	}
	return lib.Lookup(name)
}
