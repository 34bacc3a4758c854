// Command images builds the images of the project and of its local
// cluster without a container engine, and pushes them to a registry:
//
//	images push [--registry HOST:PORT] [--record FILE] [--sbom DIR] SET...
//
// SET is infra (what the real node's own pods run), test (the end-to-end
// suite's operand images), operator (the manager, the scorecard tests,
// operator-sdk's standard ones too, and the bundle), olm (OLM v0, opm, and
// what operator-sdk run bundle serves its catalog with), catalog (the
// catalog image, and the released bundles and managers it names), olmv1
// (OLM v1) or monitoring (prometheus-operator and Prometheus). Each
// image is one layer of files on an empty base, made from programs built
// here and from Debian's packages; the
// Dockerfiles describe the same images for anyone with an engine. The
// record maps each image to the reference it was pushed as, pinned by
// digest. Each image with Go programs in it gets an SPDX document in the
// sbom folder: the programs, and the modules they were built from.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "images: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 || args[0] != "push" {
		return fmt.Errorf("usage: images push [--registry HOST:PORT] [--record FILE] [--sbom DIR] SET..., SET one of %v", slices.Sorted(maps.Keys(sets)))
	}
	flags := flag.NewFlagSet("push", flag.ContinueOnError)
	registry := flags.String("registry", "127.0.0.1:15000", "the registry to push to, over plain HTTP")
	record := flags.String("record", "", "a JSON file to write the pushed references to, by image")
	sbomDir := flags.String("sbom", "", "a folder to write an SPDX document of each image with Go programs to, as IMAGE.spdx.json")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	if flags.NArg() == 0 {
		return fmt.Errorf("name a set of images: %v", slices.Sorted(maps.Keys(sets)))
	}
	in := inputsFromEnv()
	pushed := map[string]string{}
	for _, set := range flags.Args() {
		specs, ok := sets[set]
		if !ok {
			return fmt.Errorf("unknown set %q: one of %v", set, slices.Sorted(maps.Keys(sets)))
		}
		images, err := specs(in)
		if err != nil {
			return fmt.Errorf("%s: %w", set, err)
		}
		for _, key := range slices.Sorted(maps.Keys(images)) {
			ref, err := push(*registry, images[key])
			if err != nil {
				return err
			}
			pushed[key] = ref
			fmt.Printf("%-24s %s\n", key, ref)
			if *sbomDir != "" {
				if err := writeSBOM(filepath.Join(*sbomDir, key+".spdx.json"), images[key], ref); err != nil {
					return err
				}
			}
		}
	}
	if *record == "" {
		return nil
	}
	data, err := json.MarshalIndent(pushed, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(*record, append(data, '\n'), 0o644)
}

// writeSBOM writes the SPDX document of an image with Go programs to file.
func writeSBOM(file string, s spec, ref string) error {
	data, err := sbom(s, ref, time.Now())
	if errors.Is(err, errNoPrograms) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// push builds an image and pushes it under its name, and returns the
// reference it can be pulled by, pinned by the digest the registry now
// serves.
func push(registry string, s spec) (string, error) {
	img, err := build(s)
	if err != nil {
		return "", err
	}
	ref, err := name.ParseReference(registry+"/"+s.name, name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img); err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	digest, err := img.Digest()
	if err != nil {
		return "", err
	}
	return registry + "/" + s.name + "@" + digest.String(), nil
}
