package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/yaml"
)

func featureName(name string) featuregate.Feature { return featuregate.Feature(name) }

// FieldError is one reason for a rejection, with its field path.
type FieldError struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

// APIServerVerdict is what creating the object through the API server gives.
type APIServerVerdict struct {
	Accepted bool         `json:"accepted"`
	Errors   []FieldError `json:"errors"`
	// Pruned lists the unknown fields the API server drops (kubectl's default --validate=strict rejects them).
	Pruned []string `json:"pruned"`
	// Object is the stored object: defaulted, pruned, with the generated name if generateName was used.
	Object map[string]any `json:"object,omitempty"`
}

type crdEntry struct {
	kind       schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	strategy   createStrategy
}

// createStrategy is the part of customresource's strategy the create handler calls.
type createStrategy interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
}

type apiServer struct {
	byKind map[string]*crdEntry // "ray.io/v1/RayCluster"
}

func newAPIServer(dir string) (*apiServer, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.yaml in %s", dir)
	}
	s := &apiServer{byKind: map[string]*crdEntry{}}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if crd.Kind != "CustomResourceDefinition" {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served || v.Schema == nil {
				continue
			}
			entry, err := newCRDEntry(crd, v)
			if err != nil {
				return nil, fmt.Errorf("%s version %s: %w", f, v.Name, err)
			}
			s.byKind[crd.Spec.Group+"/"+v.Name+"/"+crd.Spec.Names.Kind] = entry
		}
	}
	return s, nil
}

// newCRDEntry mirrors crdHandler.getOrCreateServingInfoFor: internal schema, structural schema with pruned
// defaults, schema validator, and the custom resource strategy.
func newCRDEntry(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) (*crdEntry, error) {
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	structural = structural.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(structural); err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var statusValidator apiservervalidation.SchemaValidator
	if props, ok := internal.OpenAPIV3Schema.Properties["status"]; ok {
		statusValidator, _, err = apiservervalidation.NewSchemaValidator(&props)
		if err != nil {
			return nil, err
		}
	}
	var status *apiextensions.CustomResourceSubresourceStatus
	var scale *apiextensions.CustomResourceSubresourceScale
	if v.Subresources != nil {
		internalSub := &apiextensions.CustomResourceSubresources{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresources_To_apiextensions_CustomResourceSubresources(v.Subresources, internalSub, nil); err != nil {
			return nil, err
		}
		status, scale = internalSub.Status, internalSub.Scale
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
	strategy := customresource.NewStrategy(unstructuredscheme.NewUnstructuredObjectTyper(),
		crd.Spec.Scope == apiextensionsv1.NamespaceScoped, kind, validator, statusValidator, structural,
		status, scale, v.SelectableFields)
	return &crdEntry{
		kind: kind, namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped, structural: structural,
		strategy: strategy,
	}, nil
}

func fieldErrors(errs field.ErrorList) []FieldError {
	out := make([]FieldError, 0, len(errs))
	for _, e := range errs {
		out = append(out, FieldError{Field: e.Field, Type: string(e.Type), Detail: e.ErrorBody()})
	}
	return out
}

func reject(field, detail string) *APIServerVerdict {
	return &APIServerVerdict{Errors: []FieldError{{Field: field, Type: "FieldValueInvalid", Detail: detail}}, Pruned: []string{}}
}

// create runs the API server's create path on one JSON document.
func (s *apiServer) create(doc []byte) (*APIServerVerdict, *unstructured.Unstructured) {
	obj := map[string]any{}
	if err := utiljson.Unmarshal(doc, &obj); err != nil {
		return reject("", "the request body is not a JSON object: "+err.Error()), nil
	}
	u := &unstructured.Unstructured{Object: obj}
	apiVersion, kind := u.GetAPIVersion(), u.GetKind()
	entry := s.byKind[apiVersion+"/"+kind]
	if entry == nil {
		return reject("kind", fmt.Sprintf("no CRD serves %s %s", apiVersion, kind)), nil
	}
	verdict := &APIServerVerdict{Pruned: []string{}, Errors: []FieldError{}}

	// Decoding: defaults first (unstructuredDefaulter), then the schema coercer (pruning, nulls, metadata).
	structuraldefaulting.Default(u.Object, entry.structural)
	objectMeta, foundMeta, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object,
		schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return reject("metadata", err.Error()), nil
	}
	verdict.Pruned = append(verdict.Pruned, metaUnknown...)
	verdict.Pruned = append(verdict.Pruned, structuralpruning.PruneWithOptions(u.Object, entry.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, entry.structural)
	if ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, entry.structural, false,
		schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true}); ferr != nil {
		return reject(ferr.Field, ferr.ErrorBody()), nil
	} else {
		verdict.Pruned = append(verdict.Pruned, paths...)
	}
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return reject("metadata", err.Error()), nil
		}
	}
	sort.Strings(verdict.Pruned)

	// The create handler: namespace from the request, generated name, PrepareForCreate, Validate.
	if entry.namespaced && u.GetNamespace() == "" {
		u.SetNamespace("default")
	}
	if u.GetName() == "" && u.GetGenerateName() != "" {
		u.SetName(names.SimpleNameGenerator.GenerateName(u.GetGenerateName()))
	}
	ctx := genericapirequest.WithNamespace(context.Background(), u.GetNamespace())
	entry.strategy.PrepareForCreate(ctx, u)
	errs := entry.strategy.Validate(ctx, u)
	verdict.Errors = fieldErrors(errs)
	verdict.Accepted = len(errs) == 0
	verdict.Object = u.Object
	return verdict, u
}
