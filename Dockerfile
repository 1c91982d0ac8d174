# syntax=docker/dockerfile:1
# The mcpconform container image: the binary, and Node.js with npm so that
# servers started with npx run inside it. From a clone:
#
#   docker build --build-arg VERSION=v1.2.3 -t mcpconform .
#   docker run --rm mcpconform run -- npx -y @modelcontextprotocol/server-everything@2025.11.25
#
# The release workflow builds it for linux/amd64 and linux/arm64 from the
# tag. Base images are pinned by exact version.
ARG GO_VERSION=1.26.8
ARG NODE_VERSION=22.23.3

# The binary, cross-compiled on the build machine for the image's platform
# with the flags of scripts/release.sh: static, so any libc will do.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath \
      -ldflags "-s -w -buildid= -X main.releaseVersion=${VERSION}" \
      -o /out/mcpconform ./cmd/mcpconform

FROM node:${NODE_VERSION}-slim
COPY --from=build /out/mcpconform /usr/local/bin/mcpconform
# The node image's unprivileged user: the suite needs no root, and npx
# caches packages in its home.
USER node
WORKDIR /home/node
ENTRYPOINT ["mcpconform"]
CMD ["run"]
