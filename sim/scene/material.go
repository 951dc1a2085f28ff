package scene

import (
	"encoding/json"
	"fmt"
	"slices"

	"drape/sim/cloth"
	"drape/sim/fabric"
	"drape/sim/strainlimit"
)

// applyMaterial looks up the scene's "material" (a fabric preset: the
// file assets/materials/NAME.json, see package fabric) and applies it
// over the defaults of Params and Strain, before the scene's own "params"
// and "strain" blocks, whose keys therefore override the preset's. An
// unknown name is an error that lists the presets; a springs scene has no
// FEM material.
func (s *Scene) applyMaterial(data []byte, name string) error {
	s.Material = name
	if name == "" {
		return nil
	}
	p, err := s.preset()
	if err != nil {
		line, col := lineCol(data, keyOffset(data, `"material"`))
		return fmt.Errorf("line %d, column %d: material: %w", line, col, err)
	}
	p.Apply(&s.Params, &s.Strain)
	return nil
}

// preset returns the scene's fabric preset; an error for a springs scene
// or an unknown name.
func (s *Scene) preset() (*fabric.Preset, error) {
	if s.IsSprings() {
		return nil, fmt.Errorf("a fabric preset sets FEM parameters; \"model\": \"springs\" has none")
	}
	return fabric.Lookup(s.Material)
}

// materialBlocks returns the "params" and "strain" blocks Encode writes:
// every key, or, for a scene with a Material, every key but the preset's
// that still hold the preset's values (over DefaultParams, as ParseScene
// applies it), so that the saved file names the preset and only the
// overrides. Reading it back gives the same values.
func (s *Scene) materialBlocks() (params, strain json.RawMessage, err error) {
	if s.Material == "" {
		params, err = cloth.ParamTable.Encode(&s.Params)
		if err == nil {
			strain, err = strainlimit.Table.Encode(&s.Strain)
		}
		return params, strain, err
	}
	p, err := s.preset()
	if err != nil {
		return nil, nil, fmt.Errorf("material: %w", err)
	}
	pp, ps := p.Values()
	params, err = cloth.ParamTable.EncodeKeys(&s.Params, func(key string) bool {
		f := cloth.ParamTable.Field(key)
		return !slices.Contains(p.ParamKeys(), key) || f.Value(&s.Params) != f.Value(&pp)
	})
	if err != nil {
		return nil, nil, err
	}
	strain, err = strainlimit.Table.EncodeKeys(&s.Strain, func(key string) bool {
		f := strainlimit.Table.Field(key)
		return !slices.Contains(p.StrainKeys(), key) || f.Value(&s.Strain) != f.Value(&ps)
	})
	return params, strain, err
}
