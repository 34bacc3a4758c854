# Build the manager binary, with the Go release the Makefile's GO_TOOLCHAIN
# names.
FROM docker.io/library/golang:1.27.3 AS builder
ARG TARGETOS
ARG TARGETARCH

WORKDIR /workspace
# Dependencies first, so that a source change reuses the module layer.
COPY go.mod go.sum ./
RUN go mod download

COPY main.go main.go
COPY api/ api/
COPY controllers/ controllers/
COPY internal/ internal/

# No cgo: the binary runs on distroless/static. GOARCH follows the platform
# being built for, so one Dockerfile builds every architecture.
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -ldflags="-s -w" -o manager .

# Run it as a non-root user on an image with nothing else in it.
FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]
