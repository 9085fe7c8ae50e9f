# Installs a Node.js application's production dependencies from its lock file and starts it with
# `npm start`, on Alpine Linux.
FROM node:lts-alpine

WORKDIR /usr/src/app
ENV NODE_ENV=production

COPY package.json package-lock.json* ./
RUN npm ci --omit=dev

COPY . .

# The port your application listens on.
EXPOSE 3000

USER node
CMD ["npm", "start"]
