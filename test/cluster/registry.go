package cluster

import "fmt"

// The registry serves the cluster's images over plain HTTP, which
// containerd and the image pusher use. A second registry process serves the
// same storage read-only over HTTPS, with a certificate of the cluster's
// CA, for clients on the host that accept nothing else: operator-sdk run
// bundle reads its index image's labels over TLS, whatever its flags say.
func (c Config) registry() process {
	return c.registryProcess(registryName)
}

func (c Config) registryTLS() process {
	return c.registryProcess(registryTLSName)
}

func (c Config) registryProcess(name string) process {
	return process{
		name: name, binary: c.Registry, args: []string{"serve", c.path(name + ".yaml")},
		// The registry exports traces to a collector unless told not to.
		env: []string{"OTEL_TRACES_EXPORTER=none"},
	}
}

// registryConfigs are the configuration files of the two registries: one
// storage, written by the first, only read by the second.
func (c Config) registryConfigs() map[string]string {
	const format = `version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
  maintenance:
    readonly:
      enabled: %t
http:
  addr: %s
`
	const tls = `  tls:
    certificate: %s
    key: %s
`
	return map[string]string{
		c.path(registryName + ".yaml"): fmt.Sprintf(format, c.path(registryDir), false, c.RegistryHost()),
		c.path(registryTLSName + ".yaml"): fmt.Sprintf(format, c.path(registryDir), true, c.RegistryTLSHost()) +
			fmt.Sprintf(tls, c.pki().path(registryTLSName+".crt"), c.pki().path(registryTLSName+".key")),
	}
}

// registryTLSIdentity is the HTTPS registry's serving certificate.
func (c Config) registryTLSIdentity() identity {
	return identity{
		name: registryTLSName, cn: registryTLSName, server: true,
		ips: netIPs(loopback, c.apiAddress()), dns: []string{localhostName},
	}
}
