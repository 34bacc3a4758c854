package main

import (
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// An SPDX 2.3 document (https://spdx.github.io/spdx-spec/v2.3/), in its
// JSON form, with the fields an image of Go programs needs.
type spdxDocument struct {
	SPDXVersion       string             `json:"spdxVersion"`
	DataLicense       string             `json:"dataLicense"`
	SPDXID            string             `json:"SPDXID"`
	Name              string             `json:"name"`
	DocumentNamespace string             `json:"documentNamespace"`
	CreationInfo      spdxCreationInfo   `json:"creationInfo"`
	Packages          []spdxPackage      `json:"packages"`
	Relationships     []spdxRelationship `json:"relationships"`
}

type spdxCreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	SPDXID           string            `json:"SPDXID"`
	Name             string            `json:"name"`
	VersionInfo      string            `json:"versionInfo,omitempty"`
	DownloadLocation string            `json:"downloadLocation"`
	FilesAnalyzed    bool              `json:"filesAnalyzed"`
	LicenseConcluded string            `json:"licenseConcluded"`
	LicenseDeclared  string            `json:"licenseDeclared"`
	CopyrightText    string            `json:"copyrightText"`
	PrimaryPurpose   string            `json:"primaryPackagePurpose,omitempty"`
	Comment          string            `json:"comment,omitempty"`
	ExternalRefs     []spdxExternalRef `json:"externalRefs,omitempty"`
}

type spdxExternalRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type spdxRelationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

const noAssertion = "NOASSERTION"

// errNoPrograms says that an image holds no Go program to describe.
var errNoPrograms = errors.New("no Go program in the image")

// sbom is the SPDX document of the image s, pushed as ref (pinned by its
// digest): the image, each Go program in it, and the modules and the Go
// standard library each was built from, as the program's build
// information records them.
func sbom(s spec, ref string, created time.Time) ([]byte, error) {
	image := spdxPackage{
		SPDXID: "SPDXRef-Image", Name: s.name, DownloadLocation: noAssertion, PrimaryPurpose: "CONTAINER",
		ExternalRefs: []spdxExternalRef{{"PACKAGE-MANAGER", "purl", ociPURL(s.name, ref)}},
	}
	doc := spdxDocument{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT", Name: ref,
		DocumentNamespace: "https://seed-operators.github.io/spdx/" + ref,
		CreationInfo:      spdxCreationInfo{Created: created.UTC().Format(time.RFC3339), Creators: []string{"Tool: seed-operator-hack-images"}},
		Relationships:     []spdxRelationship{{"SPDXRef-DOCUMENT", "DESCRIBES", image.SPDXID}},
	}
	doc.Packages = append(doc.Packages, withoutLicenses(image))
	ids := map[string]string{}
	for i, f := range s.files {
		info, err := buildinfo.ReadFile(f.source)
		if err != nil {
			continue // not a Go program: a configuration file or a package's file
		}
		program := spdxPackage{
			SPDXID: fmt.Sprintf("SPDXRef-Program-%d", i), Name: f.path, VersionInfo: info.Main.Version,
			DownloadLocation: noAssertion, PrimaryPurpose: "APPLICATION",
			Comment: fmt.Sprintf("main module %s, built with %s", info.Main.Path, info.GoVersion),
		}
		doc.Packages = append(doc.Packages, withoutLicenses(program))
		doc.Relationships = append(doc.Relationships, spdxRelationship{image.SPDXID, "CONTAINS", program.SPDXID})
		modules := append([]*debug.Module{{Path: "stdlib", Version: info.GoVersion}}, info.Deps...)
		for _, m := range modules {
			if m.Replace != nil {
				m = m.Replace
			}
			key := m.Path + "@" + m.Version
			id, seen := ids[key]
			if !seen {
				id = fmt.Sprintf("SPDXRef-Module-%d", len(ids))
				ids[key] = id
				doc.Packages = append(doc.Packages, withoutLicenses(spdxPackage{
					SPDXID: id, Name: m.Path, VersionInfo: m.Version, DownloadLocation: noAssertion, PrimaryPurpose: "LIBRARY",
					Comment:      m.Sum,
					ExternalRefs: []spdxExternalRef{{"PACKAGE-MANAGER", "purl", "pkg:golang/" + m.Path + "@" + m.Version}},
				}))
			}
			doc.Relationships = append(doc.Relationships, spdxRelationship{program.SPDXID, "DEPENDS_ON", id})
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: %w", s.name, errNoPrograms)
	}
	return json.MarshalIndent(doc, "", "  ")
}

// withoutLicenses says that the document asserts nothing of a package's
// license or copyright: a Go program's build information does not record
// them.
func withoutLicenses(p spdxPackage) spdxPackage {
	p.LicenseConcluded, p.LicenseDeclared, p.CopyrightText = noAssertion, noAssertion, noAssertion
	return p
}

// ociPURL is the package URL of an image pushed as ref (host/name@digest).
func ociPURL(name, ref string) string {
	_, digest, _ := strings.Cut(ref, "@")
	repository := name[strings.LastIndex(name, "/")+1:]
	repository, tag, _ := strings.Cut(repository, ":")
	purl := "pkg:oci/" + repository + "@" + strings.Replace(digest, ":", "%3A", 1)
	if tag != "" {
		purl += "?tag=" + tag
	}
	return purl
}
