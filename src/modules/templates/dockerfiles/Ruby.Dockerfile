# Installs a Ruby application's gems with Bundler and runs it.
FROM ruby:3

WORKDIR /usr/src/app
ENV BUNDLE_WITHOUT=development:test

COPY Gemfile Gemfile.lock ./
RUN bundle install

COPY . .

# The port your application listens on, and the command that starts it (a Rack server here).
EXPOSE 9292
CMD ["bundle", "exec", "rackup", "--host", "0.0.0.0"]
