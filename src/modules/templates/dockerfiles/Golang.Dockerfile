# Builds a Go module and runs the result; the build cache stays in the image's first stage.
FROM golang:1 AS build

WORKDIR /src
COPY go.mod go.sum* ./
RUN go mod download
COPY . .
RUN go build -o /out/app .

FROM debian:stable-slim
COPY --from=build /out/app /usr/local/bin/app

# EXPOSE 8080
CMD ["app"]
