package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/operator-registry/alpha/action"
)

// validate checks a bundle folder as the community operators pipeline does:
// operator-framework/api's validators, every warning counted as an error,
// and opm's rendering of the bundle.
func validate(ctx context.Context, dir, k8sVersion string) error {
	b, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		return fmt.Errorf("loading the bundle in %s: %w", dir, err)
	}
	validators := validation.DefaultBundleValidators.WithValidators(
		validation.OperatorHubV2Validator,
		validation.StandardCapabilitiesValidator,
		validation.StandardCategoriesValidator,
		validation.GoodPracticesValidator,
		validation.AlphaDeprecatedAPIsValidator,
	)
	objs := append(b.ObjectsToValidate(), map[string]string{"k8s-version": k8sVersion})
	var problems []error
	for _, result := range validators.Validate(objs...) {
		for _, e := range append(result.Errors, result.Warnings...) {
			problems = append(problems, e)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the validators of %s: %w", dir, errors.Join(problems...))
	}

	cfg, err := (&action.Render{Refs: []string{dir}, AllowedRefMask: action.RefBundleDir}).Run(ctx)
	if err != nil {
		return fmt.Errorf("opm render %s: %w", dir, err)
	}
	if len(cfg.Bundles) != 1 || cfg.Bundles[0].Name != b.CSV.Name {
		return fmt.Errorf("opm render %s: want the one bundle %s, got %d bundles", dir, b.CSV.Name, len(cfg.Bundles))
	}
	return nil
}
