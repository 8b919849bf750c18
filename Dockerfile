# The container image: the static (musl) binary of the release and nothing else, so the
# image is the size of the binary, has no shell or package to patch, and runs the same on
# any host. It is not built from source here: `.ci/release-check container` (and the
# release workflow) put the binaries of the release archives into the build context as
# `amd64/override-guard` and `arm64/override-guard`, and the platform picks one.
#
#   docker run --rm -v "$PWD:/repo:ro" override-guard audit .
#
# The repository is mounted at /repo, the working directory, so the paths in its findings
# are the repository's own.
FROM scratch
# Set by the builder from --platform (amd64 or arm64).
ARG TARGETARCH
ARG VERSION
LABEL org.opencontainers.image.title="override-guard" \
      org.opencontainers.image.description="Makes Terraform and OpenTofu override files visible and enforceable" \
      org.opencontainers.image.source="https://github.com/override-guard/override-guard" \
      org.opencontainers.image.licenses="MIT OR Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
COPY ${TARGETARCH}/override-guard /usr/local/bin/override-guard
# scratch has no PATH of its own.
ENV PATH=/usr/local/bin
# Not root: a mounted repository is only read (run with --user "$(id -u)" for `fix` or
# `fold`, which write files that should stay yours).
USER 65532:65532
WORKDIR /repo
ENTRYPOINT ["override-guard"]
CMD ["--help"]
