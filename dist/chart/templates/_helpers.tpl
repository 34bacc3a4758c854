{{/*
The prefix of every object's name: the release name when it already says
seed-operator (as config/ names the objects), else release-chart. Short
enough that the longest name, the metrics Service's, is a DNS label.
*/}}
{{- define "seed-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 28 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 28 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The manager's Deployment, ServiceAccount and pods are named this. */}}
{{- define "seed-operator.manager" -}}
{{- include "seed-operator.fullname" . }}-controller-manager
{{- end -}}

{{/* Labels of every object. */}}
{{- define "seed-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.labels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The metadata of every object, from a dict: ctx (the chart's context), name,
and optionally namespace, labels and annotations (added to every object's).
*/}}
{{- define "seed-operator.metadata" -}}
name: {{ .name }}
{{- with .namespace }}
namespace: {{ . }}
{{- end }}
labels:
  {{- include "seed-operator.labels" .ctx | nindent 2 }}
  {{- with .labels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with merge (dict) (.annotations | default dict) .ctx.Values.annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* What selects the manager's pods. */}}
{{- define "seed-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
control-plane: controller-manager
{{- end -}}

{{- define "seed-operator.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default (printf "v%s" .Chart.AppVersion)) -}}
{{- end -}}
{{- end -}}

{{- define "seed-operator.replicas" -}}
{{- if .Values.ha -}}
{{- max 2 .Values.replicas -}}
{{- else -}}
{{- .Values.replicas -}}
{{- end -}}
{{- end -}}

{{/*
Refuses values the schema cannot: it does not compare two values.
*/}}
{{- define "seed-operator.validate" -}}
{{- $le := .Values.leaderElection -}}
{{- if ge (int $le.retryPeriodSeconds) (int $le.renewDeadlineSeconds) -}}
{{- fail (printf "leaderElection.retryPeriodSeconds (%v) must be less than leaderElection.renewDeadlineSeconds (%v): the leader must get to retry a renewal" $le.retryPeriodSeconds $le.renewDeadlineSeconds) -}}
{{- end -}}
{{- $stopped := addf (int $le.retryPeriodSeconds) (mulf 1.5 (int $le.renewDeadlineSeconds)) -}}
{{- if le (float64 $le.leaseDurationSeconds) $stopped -}}
{{- fail (printf "leaderElection.leaseDurationSeconds (%v) must be more than leaderElection.retryPeriodSeconds plus 1.5 times leaderElection.renewDeadlineSeconds (%v): a leader cut off from the API server runs that long, and no other may lead before then" $le.leaseDurationSeconds $stopped) -}}
{{- end -}}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) -}}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled: the ServiceMonitor scrapes the metrics Service" -}}
{{- end -}}
{{- end -}}
