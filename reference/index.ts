export * from './toolIndex'
export * from './keywordSearch'
