package cluster

import (
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig at file that reaches the API server at
// server, trusting the CA, as the user whose key and certificate the PKI
// issued under name.
func writeKubeconfig(file, server string, p *pki, name string) error {
	config := clientcmdapi.NewConfig()
	config.Clusters["local"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: p.path("ca.crt")}
	config.AuthInfos[name] = &clientcmdapi.AuthInfo{
		ClientCertificate: p.path(name + ".crt"),
		ClientKey:         p.path(name + ".key"),
	}
	config.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: name}
	config.CurrentContext = "local"
	// Embedded, so that the kubeconfig works wherever it is copied.
	if err := clientcmdapi.FlattenConfig(config); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*config, file)
}
