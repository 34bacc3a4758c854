package main

import (
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// The test binary is a Go program with build information, as the manager
// is: an image of it is described with every module it was built from.
func TestSBOMListsTheModulesOfEachProgram(t *testing.T) {
	g := NewWithT(t)
	self, err := os.Executable()
	g.Expect(err).NotTo(HaveOccurred())
	info, err := buildinfo.ReadFile(self)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(info.Deps).NotTo(BeEmpty())

	s := program("seed-operators/seed-operator:v1.2.3", self, "/manager")
	const ref = "127.0.0.1:15000/seed-operators/seed-operator@sha256:abc"
	data, err := sbom(s, ref, time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC))
	g.Expect(err).NotTo(HaveOccurred())
	var doc spdxDocument
	g.Expect(json.Unmarshal(data, &doc)).To(Succeed())

	g.Expect(doc.SPDXVersion).To(Equal("SPDX-2.3"))
	g.Expect(doc.CreationInfo.Created).To(Equal("2026-11-25T00:00:00Z"))
	g.Expect(doc.Relationships).To(ContainElement(spdxRelationship{"SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Image"}))
	purls := map[string]string{}
	for _, p := range doc.Packages {
		for _, r := range p.ExternalRefs {
			purls[r.Locator] = p.SPDXID
		}
	}
	g.Expect(purls).To(HaveKey("pkg:oci/seed-operator@sha256%3Aabc?tag=v1.2.3"))
	g.Expect(purls).To(HaveKey("pkg:golang/stdlib@" + info.GoVersion))
	for _, m := range info.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		id := purls["pkg:golang/"+m.Path+"@"+m.Version]
		g.Expect(id).NotTo(BeEmpty(), "module %s@%s", m.Path, m.Version)
		g.Expect(doc.Relationships).To(ContainElement(spdxRelationship{fmt.Sprintf("SPDXRef-Program-%d", len(s.files)-1), "DEPENDS_ON", id}))
	}
	for _, p := range doc.Packages {
		g.Expect(p.LicenseConcluded).To(Equal(noAssertion), "nothing is asserted of %s's license", p.Name)
	}
}

func TestSBOMOfAnImageWithoutPrograms(t *testing.T) {
	g := NewWithT(t)
	_, err := sbom(spec{name: "config", files: []file{{path: "/etc/passwd", source: "images_test.go"}}}, "r@sha256:0", time.Now())
	g.Expect(errors.Is(err, errNoPrograms)).To(BeTrue(), "got %v", err)
}
