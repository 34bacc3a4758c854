package cluster

import "strings"

// The API server keeps an audit log of what service accounts outside
// kube-system do, at the Metadata level (who, which verb, which object;
// never a body): the operator's requests, from which a test can tell
// which of its RBAC rules it uses. The built-in controllers, which are
// kube-system's service accounts, would swamp it; of theirs, and of
// everyone's, it keeps the writes of WebServers and Deployments and of
// their scale, so that a test can tell who sets replicas.
const (
	auditPolicyFile = "audit-policy.yaml"
	auditLogFile    = "audit.log"
)

// AuditLog is the API server's audit log (JSON lines, audit.k8s.io/v1
// Events). It outlives a cluster-down, as the other logs do, and grows
// until the next cluster-up.
func (c Config) AuditLog() string { return c.path(logsDir, auditLogFile) }

func auditPolicy() string {
	return strings.Join([]string{
		"apiVersion: audit.k8s.io/v1",
		"kind: Policy",
		"omitStages: [RequestReceived]",
		"rules:",
		"- level: Metadata",
		"  verbs: [create, update, patch]",
		"  resources:",
		"  - {group: seed.example.com, resources: [webservers, webservers/scale]}",
		"  - {group: apps, resources: [deployments, deployments/scale]}",
		"- level: None",
		"  userGroups: [system:serviceaccounts:kube-system]",
		"- level: Metadata",
		"  userGroups: [system:serviceaccounts]",
		"- level: None",
		"",
	}, "\n")
}
